"""The PostgreSQL backend (app.realtime.backends.postgres): LISTEN/NOTIFY between the hubs of several
processes, announced events read on the listening connection, and a listener that survives losing it."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from sqlalchemy import text

from app.realtime.backends.postgres import PostgresBackend
from app.realtime.publishing import messages_topic
from tests.factories.realtime import new_message, publish_event
from tests.helpers import HUB_READER, count_queries, wait_for
from tests.realtime.support import LiveServer, scene, subscribe

pytestmark = pytest.mark.postgres_only


async def test_an_event_committed_in_one_process_reaches_the_other(
    live: LiveServer, second: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    async with subscribe(second, topic, token=s.token) as stream:
        sent = [await publish_event(live.app, topic, new_message(s.claim.id, n)) for n in (1, 2)]
        assert await stream.events(2) == sent


async def test_the_listener_reconnects_and_loses_nothing(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    backend: PostgresBackend = live.app.state.hub_backend
    await wait_for(lambda: asyncio.sleep(0, backend.server_pid))
    old_pid = backend.server_pid

    async with subscribe(http, topic, token=s.token) as stream:
        before = await publish_event(live.app, topic, new_message(s.claim.id, 1))
        assert await stream.events(1) == [before]

        async with live.app.state.sessionmaker() as session:
            listeners = await session.scalars(
                text(
                    "SELECT pid FROM pg_stat_activity"
                    " WHERE application_name = 'warranty-listener' AND datname = current_database()"
                )
            )
            assert old_pid in set(listeners)
            await session.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": old_pid})
        # Published while the listener is down or reconnecting: no NOTIFY reaches it.
        missed = [await publish_event(live.app, topic, new_message(s.claim.id, n)) for n in (2, 3, 4)]

        assert await stream.events(3, within=30) == missed
        new_pid = await wait_for(lambda: asyncio.sleep(0, backend.server_pid), within=30)
        assert new_pid != old_pid
        after = await publish_event(live.app, topic, new_message(s.claim.id, 5))
        assert await stream.events(1) == [after]  # live again, and nothing twice


async def test_announced_events_are_read_on_the_listening_connection(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    backend: PostgresBackend = live.app.state.hub_backend
    await wait_for(lambda: asyncio.sleep(0, backend.server_pid))
    async with subscribe(http, topic, token=s.token) as stream:
        with count_queries(live.app, with_hub_reader=True) as statements:
            sent = await publish_event(live.app, topic, new_message(s.claim.id, 1))
            assert await stream.events(1) == [sent]
    assert not [statement for statement in statements if statement.lstrip().startswith(HUB_READER)]
