"""The hub's clock (app.realtime.stream_clock): a heartbeat on every stream that would stay quiet longer
than WARRANTY_SSE_HEARTBEAT, and the end of a stream before its token expires."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from app.realtime.hub import Hub
from app.realtime.publishing import messages_topic
from app.realtime.stream_clock import MAX_TICK, tick, tick_interval
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


def test_a_tick_is_at_most_a_second_and_at_most_half_the_heartbeat() -> None:
    assert tick_interval(15.0) == MAX_TICK == 1.0
    assert tick_interval(1.0) == 0.5


async def test_a_tick_marks_heartbeats_due_and_ends_the_streams_expiring_before_the_next() -> None:
    hub = Hub(queue_size=8, max_streams_per_user=5)
    quiet, busy, expiring, later = (hub.subscribe(user_id, ["claims/1/messages"]) for user_id in (1, 2, 3, 4))
    now = asyncio.get_running_loop().time()
    quiet.written = now - 4.5  # quiet for longer than the heartbeat by the next tick
    busy.written = now - 3.5
    expiring.expires_at = now + 0.9  # expires before the next tick
    later.expires_at = now + 1.1
    waiter = asyncio.get_running_loop().create_future()
    quiet.waiter = waiter

    tick(hub, now, heartbeat=5.0, interval=1.0)

    assert quiet.beat and waiter.done()
    assert not busy.beat and not busy.closed
    assert expiring.closed and expiring.reason == "expired"
    assert not later.closed
    assert hub.subscriber_count == 3
