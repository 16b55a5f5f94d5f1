"""The PostgreSQL backend (app.realtime.backends.postgres): LISTEN/NOTIFY between the hubs of several
processes, announced events read on the listening connection, and a listener that survives losing it."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text

from app.realtime.backends.postgres import PostgresBackend, asyncpg_dsn
from app.realtime.publishing import StoredEvent, messages_topic
from tests.factories.realtime import new_message, publish_event
from tests.helpers import HUB_READER, count_queries, wait_for
from tests.realtime.support import LiveServer, scene, subscribe


@pytest.mark.postgres_only
async def test_an_event_committed_in_one_process_reaches_the_other(
    live: LiveServer, second: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    async with subscribe(second, topic, token=s.token) as stream:
        sent = [await publish_event(live.app, topic, new_message(s.claim.id, n)) for n in (1, 2)]
        assert await stream.events(2) == sent


@pytest.mark.postgres_only
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


@pytest.mark.postgres_only
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


def test_the_listener_connects_with_asyncpgs_form_of_the_url() -> None:
    url = "postgresql+asyncpg://warranty:p%40ss@db.internal:5433/warranty?ssl=require"
    assert asyncpg_dsn(url) == "postgresql://warranty:p%40ss@db.internal:5433/warranty?ssl=require"


async def test_nothing_is_read_on_a_listener_that_is_not_connected() -> None:
    backend = PostgresBackend("postgresql+asyncpg://nobody@127.0.0.1:1/none")
    assert backend.server_pid is None
    assert await backend.read_after(0, 10) is None  # the tail then reads through the pool


@pytest.mark.postgres_only
async def test_a_notify_wakes_the_tail_and_the_announced_rows_are_read_on_the_connection(
    app: FastAPI,
) -> None:
    woken = asyncio.Event()
    tail = SimpleNamespace(wake=woken.set, reader=None)
    backend = PostgresBackend(app.state.settings.database_url)
    await backend.start(tail)  # type: ignore[arg-type]
    try:
        await asyncio.wait_for(backend.connected.wait(), 10)
        assert tail.reader == backend.read_after and backend.server_pid is not None
        await asyncio.wait_for(woken.wait(), 10)  # once listening: catch up on what came meanwhile
        woken.clear()

        event_id, payload = await publish_event(app, "claims/1/messages", {"n": 1})
        await asyncio.wait_for(woken.wait(), 10)  # the commit's NOTIFY
        assert await backend.read_after(event_id - 1, 10) == [
            StoredEvent(event_id, "claims/1/messages", payload)
        ]
        assert await backend.read_after(event_id, 10) == []
    finally:
        await backend.stop()
    assert backend.server_pid is None and await backend.read_after(0, 10) is None
