"""Fixtures of the real-time tests: the app served live, a client of it, and a second server process."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from app.config import Settings
from tests.conftest import TEST_SECRET, _empty_all_tables
from tests.helpers import wait_for
from tests.realtime.support import LiveServer, Process, live_server
from tests.support.ports import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def live(settings: Settings, database_url: str) -> AsyncIterator[LiveServer]:
    """The test's app served by a real uvicorn (httpx's ASGI transport cannot stream an endless body)."""
    await _empty_all_tables(database_url)
    async with live_server(settings) as server:
        yield server


@pytest.fixture
async def http(live: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live.url, timeout=10) as client:
        yield client


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
    """A client of the second process, once it answers."""
    async with httpx.AsyncClient(base_url=second_process.url, timeout=10) as client:

        async def healthy() -> bool:
            try:
                return (await client.get("/health")).status_code == 200
            except httpx.TransportError:
                return False

        await wait_for(healthy, within=30, interval=0.1)
        yield client
