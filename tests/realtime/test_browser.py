"""A real browser on another origin: login with credentials, then EventSource withCredentials receives events.

Needs the `chromium` Debian package (/usr/bin/chromium) and the `playwright` Python package; the browser
is never downloaded by Playwright.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.realtime.publishing import messages_topic
from tests.conftest import SettingsFactory, _empty_all_tables
from tests.factories.mercure import MERCURE, post_update
from tests.factories.realtime import new_message, publish_event
from tests.factories.users import DEFAULT_PASSWORD
from tests.realtime.support import LiveServer, Scene, live_server, scene

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
HAVE_CHROMIUM = CHROMIUM.exists()
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

PAGE = b"""<!doctype html>
<html><head><meta charset="utf-8"><title>hub client</title></head><body><script>
window.received = [];
window.start = async (api, email, password, claimId) => {
  const login = await fetch(api + "/api/login", {
    method: "POST",
    credentials: "include",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify({email, password}),
  });
  if (!login.ok) throw new Error("login answered " + login.status);
  const topic = encodeURIComponent("claims/" + claimId + "/messages");
  const source = new EventSource(api + "/.well-known/mercure?topic=" + topic, {withCredentials: true});
  source.onmessage = (event) => window.received.push({id: event.lastEventId, data: event.data});
  window.source = source;
  await new Promise((resolve, reject) => {
    source.onopen = resolve;
    source.onerror = () => reject(new Error("EventSource could not connect"));
  });
};
</script></body></html>
"""


@asynccontextmanager
async def page_server(page: bytes | None = None) -> AsyncIterator[str]:
    """Serves `page` (PAGE by default) on 127.0.0.1 (another port, so another origin than the API)."""
    body = PAGE if page is None else page

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        head = f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {len(body)}\r\n"
        writer.write(head.encode() + b"Connection: close\r\n\r\n" + body)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield f"http://127.0.0.1:{port}"


@asynccontextmanager
async def browser_subscribed(
    make_settings: SettingsFactory, database_url: str
) -> AsyncIterator[tuple[LiveServer, Scene, Any]]:
    """A live server, a claim's scene, and a Chromium page on another origin whose EventSource is open on
    the claim's messages (signed in with the login cookie); received events collect in `window.received`."""
    if not HAVE_CHROMIUM:
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install -y chromium")
    playwright_api = pytest.importorskip(
        "playwright.async_api", reason="the playwright package is not installed"
    )

    await _empty_all_tables(database_url)
    async with page_server() as page_origin, live_server(make_settings(cors_origins=page_origin)) as live:
        s = await scene(live.app)
        async with playwright_api.async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                page = await browser.new_page()
                await page.goto(page_origin + "/")
                await page.evaluate(
                    "([api, email, password, claimId]) => window.start(api, email, password, claimId)",
                    [live.url, s.customer.email, DEFAULT_PASSWORD, s.claim.id],
                )
                yield live, s, page
                await page.evaluate("window.source.close()")
            finally:
                await browser.close()


async def test_browser_on_another_origin_receives_events_with_the_login_cookie(
    make_settings: SettingsFactory, database_url: str
) -> None:
    async with browser_subscribed(make_settings, database_url) as (live, s, page):
        event_id, payload = await publish_event(
            live.app, messages_topic(s.claim.id), new_message(s.claim.id, 7, "From the supplier")
        )
        await page.wait_for_function("window.received.length > 0", timeout=10_000)
        received = await page.evaluate("window.received")
    assert received == [{"id": str(event_id), "data": payload}]
    assert json.loads(received[0]["data"])["message"]["message"] == "From the supplier"


MERCURE_PAGE = b"""<!doctype html>
<html><head><meta charset="utf-8"><title>mercure client</title></head><body><script>
window.received = [];
window.start = async (hub, topic) => {
  const url = new URL(hub);
  url.searchParams.append("matchURLPattern", topic);
  const source = new EventSource(url);
  source.addEventListener("order", (event) =>
    window.received.push({id: event.lastEventId, data: event.data, type: event.type}));
  window.source = source;
  await new Promise((resolve, reject) => {
    source.onopen = resolve;
    source.onerror = () => reject(new Error("EventSource could not connect"));
  });
};
</script></body></html>
"""


async def test_a_mercure_subscriber_in_chromium_receives_a_published_update(
    make_settings: SettingsFactory, database_url: str
) -> None:
    """An anonymous EventSource with a version 1 matcher, on another origin, receives what a publisher
    posts: its id, its type and its lines of data, as the browser's SSE parser reads them."""
    if not HAVE_CHROMIUM:
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install -y chromium")
    playwright_api = pytest.importorskip(
        "playwright.async_api", reason="the playwright package is not installed"
    )
    await _empty_all_tables(database_url)
    settings = {**MERCURE, "mercure_anonymous": True}
    async with (
        page_server(MERCURE_PAGE) as origin,
        live_server(make_settings(cors_origins=origin, **settings)) as live,
        playwright_api.async_playwright() as playwright,
    ):
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page()
            await page.goto(origin + "/")
            hub = live.url + "/.well-known/mercure"
            await page.evaluate(
                "([hub, topic]) => window.start(hub, topic)", [hub, "https://shop.example/orders/:id"]
            )
            async with httpx.AsyncClient(base_url=live.url, timeout=10) as http:
                fields = [
                    ("topic", "https://shop.example/orders/7"),
                    ("data", "shipped\r\nto Ann"),
                    ("type", "order"),
                ]
                update = await post_update(http, fields)
            await page.wait_for_function("window.received.length > 0", timeout=10_000)
            received = await page.evaluate("window.received")
            await page.evaluate("window.source.close()")
        finally:
            await browser.close()
    assert received == [{"id": update.text, "data": "shipped\nto Ann", "type": "order"}]
