"""Hub frames and inputs (12.6): one `data:` line per event whatever the text, the contract's 400 for a
bad Last-Event-ID or too many topics, and no query-string token in any log."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import httpx
import pytest

from app.realtime.publishing import messages_topic, status_topic
from app.realtime.topics import MAX_TOPICS
from tests.conftest import SettingsFactory, _empty_all_tables
from tests.factories.realtime import new_message, publish_event
from tests.helpers import assert_error
from tests.realtime.support import HUB, LiveServer, live_server, scene, subscribe, token_for
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


@pytest.mark.parametrize(
    "value",
    ["²", "١٢", "-1", "+5", "1.5", "abc", "9223372036854775808", "9" * 40, "1e3", "\uff10"],
)
async def test_a_last_event_id_that_is_not_an_id_is_a_400(
    live: LiveServer, http: httpx.AsyncClient, value: str
) -> None:
    s = await scene(live.app)
    topic, auth = messages_topic(s.claim.id), {"Authorization": f"Bearer {s.token}"}
    by_query = await _answer(http, [("topic", topic), ("lastEventID", value)], auth)
    body = assert_error(by_query, 400, "VALIDATION_FAILED")
    assert set(body["details"]["fields"]) == {"lastEventID"}

    by_header = await _answer(http, [("topic", topic)], {**auth, "Last-Event-ID": value.encode()})
    body = assert_error(by_header, 400, "VALIDATION_FAILED")
    assert set(body["details"]["fields"]) == {"Last-Event-ID"}


async def _answer(
    http: httpx.AsyncClient, params: list[tuple[str, str]], headers: Mapping[str, str | bytes]
) -> httpx.Response:
    """The hub's answer; an opened stream is closed at once (its body is never read)."""
    async with http.stream("GET", HUB, params=params, headers=headers) as response:  # type: ignore[arg-type]
        if response.status_code != 200:
            await response.aread()
        return response


async def test_the_largest_id_and_leading_zeros_are_ids(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    for value in ("9223372036854775807", "000", "earliest"):
        async with subscribe(
            http, messages_topic(s.claim.id), token=s.token, headers={"Last-Event-ID": value}
        ):
            pass


async def test_at_most_fifty_topics(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    topics = [messages_topic(s.claim.id), status_topic(s.claim.id)] * (MAX_TOPICS // 2)
    async with subscribe(http, *topics, token=s.token):
        pass
    params = [("topic", topic) for topic in [*topics, messages_topic(s.claim.id)]]
    response = await _answer(http, params, {"Authorization": f"Bearer {s.token}"})
    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert "50" in body["details"]["fields"]["topic"]


# The test's own HTTP client logs the URLs it requests: that is the client's log, not the service's.
CLIENT_LOGGERS = ("httpx", "httpcore")


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith(CLIENT_LOGGERS):
            self.lines.append(f"{record.name}: {self.format(record)}")


@contextmanager
def _every_log() -> Iterator[_Records]:
    """Every record of every logger, uvicorn's access log (which does not propagate) included."""
    records = _Records()
    loggers = [logging.getLogger(), logging.getLogger("uvicorn.access"), logging.getLogger("uvicorn.error")]
    levels = [each.level for each in loggers]
    for each in loggers:
        each.addHandler(records)
        each.setLevel(logging.DEBUG)
    try:
        yield records
    finally:
        for each, level in zip(loggers, levels, strict=True):
            each.removeHandler(records)
            each.setLevel(level)


async def test_a_token_in_the_query_string_is_never_logged(
    make_settings: SettingsFactory, database_url: str
) -> None:
    await _empty_all_tables(database_url)
    async with live_server(make_settings(), access_log=True) as live:
        s = await scene(live.app)
        topic = messages_topic(s.claim.id)
        expired_or_bad = s.token[:-4] + "AAAA"
        with _every_log() as logs:
            async with httpx.AsyncClient(base_url=live.url, timeout=10) as http:
                async with subscribe(http, topic, params=[("authorization", s.token)]) as stream:
                    assert stream.response.status_code == 200
                refused = await http.get(HUB, params={"topic": topic, "authorization": expired_or_bad})
                assert_error(refused, 401, "AUTH_TOKEN_INVALID")
                # Any path: a token pasted onto an API URL is not logged either.
                await http.get("/api/products", params={"Authorization": s.token, "page": "1"})
            await live.stop()
    access = [line for line in logs.lines if "GET " in line]
    assert any("/.well-known/mercure?" in line and "authorization=REDACTED" in line for line in access), (
        logs.lines
    )
    assert any("/api/products?" in line and "page=1" in line for line in access), logs.lines
    for secret in (s.token, expired_or_bad, s.token.split(".")[2]):
        assert not [line for line in logs.lines if secret in line]


@pytest.mark.browser
async def test_a_browser_parses_the_event_of_any_unicode_text(
    make_settings: SettingsFactory, database_url: str
) -> None:
    async with browser_subscribed(make_settings, database_url) as (live, s, page):
        await publish_event(live.app, messages_topic(s.claim.id), new_message(s.claim.id, 7, HOSTILE))
        await page.wait_for_function("window.received.length > 0", timeout=10_000)
        parsed = await page.evaluate("window.received.map((event) => JSON.parse(event.data).message.message)")
    assert parsed == [HOSTILE]
