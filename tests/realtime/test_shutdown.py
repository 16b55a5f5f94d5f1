"""Ending open streams when the server is asked to stop (app.realtime.shutdown): uvicorn's exit flag closes
them, readiness fails from then on, and a process sent SIGTERM with a stream open exits."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType, SimpleNamespace
from typing import Any

import httpx
import pytest

from app.realtime.publishing import messages_topic
from app.realtime.shutdown import POLL, draining, server_exit_flag, watch_exit
from tests.realtime.support import LiveServer, Process, scene, subscribe


async def test_shutdown_ends_open_streams(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    async with subscribe(http, messages_topic(s.claim.id), token=s.token) as stream:
        stopping = asyncio.create_task(live.stop(within=10))
        await stream.end(within=10)
        await stopping
    assert live.app.state.hub.subscriber_count == 0


async def test_readiness_fails_from_the_start_of_shutdown(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    assert (await http.get("/health/ready")).status_code == 200
    async with (
        httpx.AsyncClient(transport=httpx.ASGITransport(app=live.app), base_url="http://app") as inside,
        subscribe(http, messages_topic(s.claim.id), token=s.token) as stream,
    ):
        live.server.should_exit = True  # what uvicorn's SIGTERM handler does first
        ready = await inside.get("/health/ready")
        await stream.end(within=10)
    assert ready.status_code == 503
    assert ready.json()["code"] == "SERVICE_UNAVAILABLE"


@pytest.mark.postgres_only  # a second process sharing the hub's database
async def test_sigterm_ends_open_streams_and_the_process_exits(
    live: LiveServer, second: httpx.AsyncClient, second_process: Process
) -> None:
    s = await scene(live.app)
    async with subscribe(second, messages_topic(s.claim.id), token=s.token) as stream:
        second_process.popen.terminate()
        await stream.end(within=10)
    # uvicorn re-raises the signal it caught once its graceful shutdown is complete.
    assert await asyncio.to_thread(second_process.popen.wait, 10) in (0, -signal.SIGTERM)


class _Server:
    """What uvicorn's Server looks like to the hub: a flag, and a bound method as the signal handler."""

    def __init__(self) -> None:
        self.should_exit = False

    def handle_exit(self, signum: int, frame: FrameType | None) -> None:
        self.should_exit = True


@contextmanager
def _handlers(sigterm: Any, sigint: Any) -> Iterator[None]:
    previous = signal.signal(signal.SIGTERM, sigterm), signal.signal(signal.SIGINT, sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous[0])
        signal.signal(signal.SIGINT, previous[1])


def test_the_exit_flag_is_the_one_of_the_server_whose_handler_is_installed() -> None:
    server = _Server()
    with _handlers(signal.SIG_DFL, server.handle_exit):
        should_exit = server_exit_flag()
    assert should_exit is not None and should_exit() is False
    server.should_exit = True
    assert should_exit() is True

    with _handlers(signal.SIG_DFL, signal.default_int_handler):
        assert server_exit_flag() is None  # not served by uvicorn: nothing to watch


def test_draining_once_the_lifespan_stops_or_the_exit_flag_is_up() -> None:
    flag = {"up": False}
    assert not draining(SimpleNamespace())
    assert draining(SimpleNamespace(draining=True))
    served = SimpleNamespace(server_exit=lambda: flag["up"])
    assert not draining(served)
    flag["up"] = True
    assert draining(served)


async def test_the_watch_calls_back_once_the_flag_flips() -> None:
    flag, calls = {"up": False}, []
    watch = asyncio.create_task(watch_exit(lambda: flag["up"], lambda: calls.append("closed")))
    await asyncio.sleep(POLL * 2)
    assert calls == [] and not watch.done()

    flag["up"] = True
    await asyncio.wait_for(watch, POLL * 5)
    assert calls == ["closed"]
