"""The in-process hub (app.realtime.hub): frames of one `data:` line whatever the text, fan-out to the
subscribers of a topic, the per-user cap, revoking topics, and dropping a subscriber that cannot keep up."""

from __future__ import annotations

import asyncio
import json
import re

import httpx
import pytest

from app.realtime.publishing import messages_topic
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
