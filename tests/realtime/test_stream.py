"""One subscriber's live stream (app.realtime.stream): the frames as they are fanned out, heartbeats, and a
last `retry:` frame on the streams the hub ends."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

import httpx
from starlette.types import Message

from app.realtime.hub import Hub, frame
from app.realtime.publishing import StoredEvent, messages_topic
from app.realtime.stream import HEARTBEAT, RETRY_MS, retry_frame, stream
from tests.helpers import wait_for
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


TOPIC = "claims/1/messages"


def event(event_id: int) -> StoredEvent:
    return StoredEvent(event_id, TOPIC, f'{{"n":{event_id}}}')


class Sent:
    """An ASGI `send` that keeps the bodies written."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    async def __call__(self, message: Message) -> None:
        assert message["type"] == "http.response.body" and message["more_body"] is True
        self.bodies.append(message["body"])


async def _until(condition: Callable[[], object]) -> None:
    await wait_for(lambda: asyncio.sleep(0, condition()), within=5)


async def test_the_stream_writes_the_fanned_out_frames_after_the_replay_and_the_heartbeats_due() -> None:
    hub = Hub(queue_size=8, max_streams_per_user=5)
    subscriber = hub.subscribe(1, [TOPIC])
    sent = Sent()
    streaming = asyncio.create_task(stream(sent, subscriber, after=1))

    hub.deliver([event(1), event(2)])  # the first was replayed already
    await _until(lambda: sent.bodies)
    subscriber.beat = True
    subscriber.wake()
    await _until(lambda: len(sent.bodies) == 2)
    hub.deliver([event(3)])
    await _until(lambda: len(sent.bodies) == 3)
    hub.close_subscriber(subscriber, "shutdown")
    await asyncio.wait_for(streaming, 5)

    assert sent.bodies[:3] == [frame(event(2)), HEARTBEAT, frame(event(3))]
    [retry] = sent.bodies[3:]
    assert re.fullmatch(rb"retry: (\d+)\n\n", retry)
    assert RETRY_MS[0] <= int(retry.split()[1]) <= RETRY_MS[1]
    assert not subscriber.beat and subscriber.waiter is None


async def test_a_client_that_goes_away_gets_no_retry_frame() -> None:
    hub = Hub(queue_size=8, max_streams_per_user=5)
    subscriber = hub.subscribe(1, [TOPIC])
    sent = Sent()
    streaming = asyncio.create_task(stream(sent, subscriber, after=0))
    await asyncio.sleep(0)

    subscriber.disconnected()
    await asyncio.wait_for(streaming, 5)
    assert sent.bodies == []


def test_the_retry_delays_spread_over_one_to_ten_seconds() -> None:
    delays = {int(retry_frame().split()[1]) for _ in range(200)}
    assert min(delays) >= 1000 and max(delays) <= 10000 and len(delays) > 100
