"""The in-process hub (app.realtime.hub): frames of one `data:` line whatever the text, fan-out to the
subscribers of a topic, the per-user cap, revoking topics, and dropping a subscriber that cannot keep up."""

from __future__ import annotations

import asyncio
import json
import re

import httpx
import pytest

from app.realtime.hub import Hub, HubClosed, TooManyStreams, frame
from app.realtime.publishing import StoredEvent, messages_topic
from tests.conftest import SettingsFactory
from tests.factories.realtime import new_message, publish_event
from tests.realtime.support import LiveServer, scene, subscribe, token_for
from tests.realtime.test_browser import browser_subscribed

# Everything a splitlines-based writer breaks a line on, the other controls, and text around them.
HOSTILE = (
    "a\u2028b\u2029c\x85d\re\r\nf\ng\x0bh\x0ci\x1cj\x1dk\x1el\x1bm\x7fn\x9fo\x01p"
    ' "quoted" \\ 😀 ünïcødé \ufeff end'
)


def sse_blocks(raw: bytes) -> list[list[tuple[str, str]]]:
    """Parses a stream as the HTML standard's EventSource does: UTF-8, lines end at CRLF, LF or CR, a
    blank line dispatches. Answers each dispatched block's (field, value) lines."""
    text = raw.decode("utf-8")
    blocks: list[list[tuple[str, str]]] = [[]]
    for line in re.split(r"\r\n|\r|\n", text):
        if line == "":
            blocks.append([])
            continue
        name, _, value = line.partition(":")
        blocks[-1].append((name, value.removeprefix(" ")))
    return [block for block in blocks[:-1] if block]


async def _first_event_bytes(response: httpx.Response) -> bytes:
    """The raw bytes of the stream up to the end of its first event (a block with a `data:` line)."""
    raw = b""
    async with asyncio.timeout(10):
        async for chunk in response.aiter_raw():
            raw += chunk
            if b"\ndata:" in raw and raw.endswith(b"\n\n"):
                return raw
    raise AssertionError(f"the stream ended: {raw!r}")


async def test_a_message_of_any_unicode_text_is_one_data_line_that_parses(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    supplier = {"Authorization": f"Bearer {token_for(live.app, s.supplier)}"}
    async with subscribe(http, messages_topic(s.claim.id), token=s.token) as stream:
        sent = await http.post(
            f"/api/claims/{s.claim.id}/messages", json={"message": HOSTILE}, headers=supplier
        )
        assert sent.status_code == 201, sent.text
        stored_text = sent.json()["message"]
        raw = await _first_event_bytes(stream.response)

    event = raw[raw.rindex(b"id:") :]
    for forbidden in ("\r", "\u2028", "\u2029", "\x85", "\x0b", "\x1c", "\x7f"):
        assert forbidden.encode() not in event
    # A browser splits lines at CR, LF and CRLF: the event is an id line and exactly one data line.
    [block] = [block for block in sse_blocks(event) if any(name == "data" for name, _ in block)]
    assert [name for name, _ in block] == ["id", "data"]
    payload = json.loads(block[1][1])
    assert payload["message"]["message"] == stored_text
    assert "\u2028" in stored_text and "\x85" in stored_text and "\r" in stored_text


async def test_replayed_events_are_framed_the_same(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    supplier = {"Authorization": f"Bearer {token_for(live.app, s.supplier)}"}
    sent = await http.post(f"/api/claims/{s.claim.id}/messages", json={"message": HOSTILE}, headers=supplier)
    assert sent.status_code == 201, sent.text
    topic = messages_topic(s.claim.id)
    async with subscribe(http, topic, token=s.token, headers={"Last-Event-ID": "earliest"}) as stream:
        raw = await _first_event_bytes(stream.response)
    [block] = [block for block in sse_blocks(raw) if any(name == "data" for name, _ in block)]
    assert [name for name, _ in block] == ["id", "data"]
    assert json.loads(block[1][1])["message"]["message"] == sent.json()["message"]


@pytest.mark.browser
async def test_a_browser_parses_the_event_of_any_unicode_text(
    make_settings: SettingsFactory, database_url: str
) -> None:
    async with browser_subscribed(make_settings, database_url) as (live, s, page):
        await publish_event(live.app, messages_topic(s.claim.id), new_message(s.claim.id, 7, HOSTILE))
        await page.wait_for_function("window.received.length > 0", timeout=10_000)
        parsed = await page.evaluate("window.received.map((event) => JSON.parse(event.data).message.message)")
    assert parsed == [HOSTILE]


@pytest.mark.settings(sse_queue_size=2)
async def test_a_subscriber_that_stops_reading_is_cut_off_while_others_keep_receiving(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    big = "x" * 200_000  # enough bytes to fill the socket buffers of the one that does not read
    count = 100
    async with (
        subscribe(http, topic, token=s.token) as slow,
        httpx.AsyncClient(base_url=live.url, timeout=10) as other_client,
        subscribe(other_client, topic, token=s.token) as fast,
    ):
        sent = []
        for n in range(count):
            sent.append(await publish_event(live.app, topic, new_message(s.claim.id, n, big)))
            assert await fast.events(1, within=20) == [sent[-1]]
        ended = await slow.end(within=30)
        got = [message for message in ended if message.data is not None]
        assert 0 < len(got) < count  # it was disconnected part way
        assert ended[-1].retry is not None and 1000 <= ended[-1].retry <= 10000  # when to come back
        assert [(int(m.id or 0), m.data) for m in got] == sent[: len(got)]

    # It resumes where it stopped.
    last = got[-1].id
    async with subscribe(http, topic, token=s.token, headers={"Last-Event-ID": str(last)}) as resumed:
        assert await resumed.events(count - len(got), within=30) == sent[len(got) :]


MESSAGES, STATUS = "claims/1/messages", "claims/1/status"


def event(event_id: int, topic: str = MESSAGES, payload: str = "{}") -> StoredEvent:
    return StoredEvent(event_id, topic, payload)


async def test_a_frame_is_an_id_line_and_one_data_line_with_line_breaks_and_controls_escaped() -> None:
    payload = '{"text":"a\nb\rc\u2028d\x85e\x1bf ✓"}'
    assert frame(event(7, payload=payload)) == (
        'id: 7\ndata: {"text":"a\\u000ab\\u000dc\\u2028d\\u0085e\\u001bf ✓"}\n\n'.encode()
    )


async def test_deliver_queues_each_event_once_for_the_subscribers_of_its_topic() -> None:
    hub = Hub(queue_size=8, max_streams_per_user=5)
    messages = hub.subscribe(1, [MESSAGES])
    both = hub.subscribe(2, [MESSAGES, STATUS])
    status = hub.subscribe(3, [STATUS])
    waiter = asyncio.get_running_loop().create_future()
    messages.waiter = waiter

    hub.deliver([event(1), event(2, STATUS), event(3, "claims/9/messages")])

    assert [event_id for event_id, _ in messages.pending] == [1]
    assert [event_id for event_id, _ in both.pending] == [1, 2]
    assert [event_id for event_id, _ in status.pending] == [2]
    assert messages.pending[0][1] is both.pending[0][1] == frame(event(1))  # serialized once
    assert waiter.done()  # a waiting stream is woken


async def test_take_joins_the_waiting_frames_after_a_replay_and_without_the_skipped_ones() -> None:
    hub = Hub(queue_size=8, max_streams_per_user=5)
    subscriber = hub.subscribe(1, [MESSAGES])
    subscriber.skip = {3}
    hub.deliver([event(n) for n in (1, 2, 3, 4)])

    assert subscriber.take(after=1) == frame(event(2)) + frame(event(4))
    assert subscriber.pending == [] and subscriber.take(after=0) == b""


async def test_a_user_holds_at_most_the_cap_of_streams_and_a_closed_one_frees_its_slot() -> None:
    hub = Hub(queue_size=8, max_streams_per_user=2)
    first = hub.subscribe(1, [MESSAGES])
    hub.subscribe(1, [STATUS])
    with pytest.raises(TooManyStreams):
        hub.subscribe(1, [MESSAGES])
    hub.subscribe(2, [MESSAGES])  # another user's streams are counted apart

    hub.unsubscribe(first)
    hub.unsubscribe(first)  # again: nothing more is freed
    hub.subscribe(1, [MESSAGES])
    with pytest.raises(TooManyStreams):
        hub.subscribe(1, [MESSAGES])
    assert hub.subscriber_count == 3

    hub.deliver([event(1)])
    assert first.pending == []  # unsubscribed: nothing queued for it any more


async def test_revoking_drops_topics_and_ends_the_stream_once_none_is_left() -> None:
    hub = Hub(queue_size=8, max_streams_per_user=5)
    subscriber = hub.subscribe(1, [MESSAGES, STATUS])

    hub.revoke(subscriber, {STATUS})
    hub.deliver([event(1, STATUS)])
    assert subscriber.topics == (MESSAGES,) and subscriber.pending == [] and not subscriber.closed

    hub.revoke(subscriber, {MESSAGES})
    assert subscriber.closed and subscriber.reason == "access"
    assert hub.subscriber_count == 0


async def test_a_full_queue_drops_its_subscriber_and_the_others_still_receive() -> None:
    hub = Hub(queue_size=2, max_streams_per_user=5)
    slow = hub.subscribe(1, [MESSAGES])
    fast = hub.subscribe(2, [MESSAGES])
    hub.deliver([event(1), event(2)])
    fast.take(after=0)

    hub.deliver([event(3)])

    assert slow.closed and slow.reason == "overflow"
    assert [event_id for event_id, _ in fast.pending] == [3] and not fast.closed
    assert hub.subscriber_count == 1


async def test_closing_the_hub_ends_every_stream_and_refuses_new_ones() -> None:
    hub = Hub(queue_size=8, max_streams_per_user=5)
    subscribers = [hub.subscribe(user_id, [MESSAGES]) for user_id in (1, 2)]
    subscribers[1].disconnected()

    hub.close()

    assert [(s.closed, s.reason) for s in subscribers] == [(True, "shutdown"), (True, "disconnect")]
    assert hub.subscriber_count == 0
    with pytest.raises(HubClosed):
        hub.subscribe(3, [MESSAGES])
