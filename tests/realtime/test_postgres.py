"""Several processes on one PostgreSQL: LISTEN/NOTIFY between hubs, and a listener that survives losing
its connection."""

from __future__ import annotations

import asyncio
import signal

import httpx
import pytest
from sqlalchemy import text

from app.realtime.backends.postgres import PostgresBackend
from app.realtime.publishing import messages_topic
from tests.factories.realtime import new_message, publish_event
from tests.helpers import HUB_READER, count_queries, wait_for
from tests.realtime.support import LiveServer, Process, scene, subscribe

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


async def test_sigterm_ends_open_streams_and_the_process_exits(
    live: LiveServer, second: httpx.AsyncClient, second_process: Process
) -> None:
    s = await scene(live.app)
    async with subscribe(second, messages_topic(s.claim.id), token=s.token) as stream:
        second_process.popen.terminate()
        await stream.end(within=10)
    # uvicorn re-raises the signal it caught once its graceful shutdown is complete.
    assert await asyncio.to_thread(second_process.popen.wait, 10) in (0, -signal.SIGTERM)


async def test_an_event_written_first_and_committed_last_comes_last_with_a_higher_id(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    from app.realtime.publishing import publish

    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    async with subscribe(http, topic, token=s.token) as stream:
        async with live.app.state.sessionmaker() as slow:
            await slow.begin()
            early = await publish(slow, topic, new_message(s.claim.id, 1, "takes its time"))
            await slow.flush()  # its row is written before the other event's
            late = await publish_event(live.app, topic, new_message(s.claim.id, 2, "commits first"))
            assert await stream.events(1) == [late]
            await slow.commit()
        [(last_id, payload)] = await stream.events(1)
        assert payload == early.payload and last_id > late[0]
    # Resuming from the first event received gives the second, once.
    async with subscribe(http, topic, token=s.token, headers={"Last-Event-ID": str(late[0])}) as resumed:
        assert await resumed.events(1) == [(last_id, early.payload)]
