"""The hub's clock (app.realtime.stream_clock): a heartbeat on every stream that would stay quiet longer
than WARRANTY_SSE_HEARTBEAT, and the end of a stream before its token expires."""

from __future__ import annotations

import httpx
import pytest

from app.realtime.publishing import messages_topic
from tests.factories.realtime import new_message, publish_event
from tests.realtime.support import LiveServer, scene, subscribe


async def test_heartbeats_go_on_while_nothing_happens(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    async with subscribe(http, messages_topic(s.claim.id), token=s.token) as stream:
        for _ in range(3):
            message = await stream.next()
            assert message is not None and message.comments == ["heartbeat"]
        sent = await publish_event(live.app, messages_topic(s.claim.id), new_message(s.claim.id, 1))
        assert await stream.events(1) == [sent]
        message = await stream.next()
        assert message is not None and message.comments == ["heartbeat"]


async def test_heartbeat_comments_keep_the_stream_alive(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    async with subscribe(http, messages_topic(s.claim.id), token=s.token) as stream:
        message = await stream.next()
        assert message is not None and message.comments and message.data is None


@pytest.mark.settings(access_token_ttl=2)
async def test_the_stream_ends_when_its_token_expires(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    async with subscribe(http, messages_topic(s.claim.id), token=s.token) as stream:
        ended = await stream.end(within=10)
    assert ended[-1].retry is not None and 1000 <= ended[-1].retry <= 10000
