"""Ending open streams when the server is asked to stop (app.realtime.shutdown): uvicorn's exit flag closes
them, readiness fails from then on, and a process sent SIGTERM with a stream open exits."""

from __future__ import annotations

import asyncio
import signal

import httpx
import pytest

from app.realtime.publishing import messages_topic
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
