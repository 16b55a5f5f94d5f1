"""One subscriber's live stream (app.realtime.stream): the frames as they are fanned out, heartbeats, and a
last `retry:` frame on the streams the hub ends."""

from __future__ import annotations

import asyncio

import httpx

from app.realtime.publishing import messages_topic
from tests.realtime.support import LiveServer, scene, subscribe


async def test_streams_the_hub_ends_tell_the_client_when_to_come_back(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    async with subscribe(http, messages_topic(s.claim.id), token=s.token) as stream:
        stopping = asyncio.create_task(live.stop(within=10))
        last = (await stream.end(within=10))[-1]
        await stopping
    assert last.retry is not None and 1000 <= last.retry <= 10000
