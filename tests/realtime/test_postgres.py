"""Several processes on one PostgreSQL: LISTEN/NOTIFY between hubs, and a listener that survives losing
its connection."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from app.realtime.backends.postgres import PostgresBackend
from app.realtime.publishing import messages_topic
from tests.conftest import TEST_SECRET
from tests.factories.realtime import new_message, publish_event
from tests.helpers import HUB_READER, count_queries, wait_for
from tests.realtime.support import LiveServer, subscribe
from tests.realtime.test_router import scene
from tests.support.ports import free_port

pytestmark = pytest.mark.postgres_only

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Process:
    url: str
    popen: subprocess.Popen[bytes]


@pytest.fixture
def second_process(database_url: str, tmp_path: Path) -> Iterator[Process]:
    """`python -m uvicorn app.main:app` in its own process, on the same database."""
    port = free_port()
    env = {
        **os.environ,
        "WARRANTY_ENV": "test",
        "WARRANTY_DATABASE_URL": database_url,
        "WARRANTY_SECRET_KEY": TEST_SECRET,
        "WARRANTY_DATA_DIR": str(tmp_path / "second"),
        "WARRANTY_RUN_WORKER": "false",
        "WARRANTY_SSE_HEARTBEAT": "1",
    }
    command = [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", str(port)]
    log = (tmp_path / "second.log").open("wb")
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        yield Process(f"http://127.0.0.1:{port}", process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise AssertionError("the second server did not stop on SIGTERM with a stream open") from None
        finally:
            log.close()


@pytest.fixture
async def second(second_process: Process) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=second_process.url, timeout=10) as client:

        async def healthy() -> bool:
            try:
                return (await client.get("/health")).status_code == 200
            except httpx.TransportError:
                return False

        await wait_for(healthy, within=30, interval=0.1)
        yield client


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
