"""docs/api.md's two browser snippets for the hub, run as written in a real Chromium against a live server:
the native EventSource one and the `@microsoft/fetch-event-source` one (the pinned package of
tests/clients). Each reads a claim, follows it from the read's `Link` hand-off, and must show every message
exactly once, in order, through what a real session meets: a 429 while another stream holds the user's only
slot (wait for `Retry-After`), streams the hub ends before the 3-second token expires (reconnect after
`retry:`), and the 401s of the expired token (refresh it, resume from the last event).

Needs Chromium and Node.js/npm (for the package); skipped, with the reason, where either is missing."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.realtime.publishing import messages_topic
from tests.clients.test_generated_client import project
from tests.conftest import SettingsFactory, _empty_all_tables
from tests.factories.users import DEFAULT_PASSWORD
from tests.helpers import wait_for
from tests.realtime.support import HUB, live_server, scene, token_for
from tests.realtime.test_browser import CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM
from tests.support.ports import free_port

pytestmark = [pytest.mark.browser, pytest.mark.node]

__all__ = ["project"]  # a fixture used below

DOCS = Path(__file__).parents[2] / "docs" / "api.md"
PAGES = "/__snippets__/"
MESSAGES = [f"message {n}" for n in range(7)]

PAGE = """<!doctype html>
<html><head><meta charset="utf-8">
<script type="importmap">
{"imports": {"@microsoft/fetch-event-source": "/__snippets__/fes/index.js"}}
</script>
<script type="module" src="/__snippets__/snippets.js"></script>
</head><body></body></html>
"""

# What the page does with each snippet: sign in (which sets the hub cookie too), then follow the claim,
# keeping the text of every message shown.
DRIVER = """
window.seen = [];
window.failures = [];
window.signIn = async (email, password) => {
  const answer = await fetch("/api/login", {
    method: "POST",
    credentials: "include",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  const body = await answer.json();
  window.auth = { token: body.token, refreshToken: body.refreshToken };
  window.firstRefreshToken = body.refreshToken;
};
window.followNative = (claimId) =>
  openClaim(claimId, window.auth, (m) => window.seen.push(m.message), (e) => window.failures.push(String(e)));
window.followFetch = (claimId) => {
  window.stop = new AbortController();
  followClaim(
    claimId,
    window.auth,
    (claim) => claim.messages.forEach((m) => window.seen.push(m.message)),
    (event) => { if (event.type === "new_message") window.seen.push(event.message.message); },
    window.stop.signal,
  ).catch((e) => window.failures.push(String(e)));
};
"""


def snippet(heading: str) -> str:
    """The first ```js block under `heading` in docs/api.md, as written."""
    text = DOCS.read_text()
    found = re.search(re.escape(heading) + r"\n.*?```js\n(.*?)```", text, re.DOTALL)
    assert found, f"no js block under {heading!r}"
    return found.group(1)


async def _serve(route: Any, package: Path) -> None:
    """The page, the two snippets with the driver, and the package's ES modules."""
    name = route.request.url.split(PAGES, 1)[1]
    if name == "page.html":
        await route.fulfill(status=200, content_type="text/html", body=PAGE)
    elif name == "snippets.js":
        code = snippet("#### Native EventSource") + snippet("#### @microsoft/fetch-event-source") + DRIVER
        await route.fulfill(status=200, content_type="text/javascript", body=code)
    elif name.startswith("fes/"):
        module = package / name.removeprefix("fes/")
        module = module if module.suffix == ".js" else module.with_suffix(".js")
        await route.fulfill(status=200, content_type="text/javascript", body=module.read_text())
    else:
        await route.fulfill(status=404, body="")


async def _post(http: httpx.AsyncClient, app: Any, claim_id: int, sender: Any) -> None:
    """The supplier posts the messages one by one, over several token lifetimes of the reader."""
    for text in MESSAGES[1:]:
        headers = {"Authorization": f"Bearer {token_for(app, sender)}"}
        answer = await http.post(f"/api/claims/{claim_id}/messages", json={"message": text}, headers=headers)
        assert answer.status_code == 201, answer.text
        await asyncio.sleep(1.5)


@pytest.mark.parametrize("follow", ["followNative", "followFetch"])
async def test_the_documented_snippet_shows_every_message_once_through_429_expiry_and_401(
    follow: str, project: Path, make_settings: SettingsFactory, database_url: str
) -> None:
    if not HAVE_CHROMIUM:
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install -y chromium")
    playwright_api = pytest.importorskip(
        "playwright.async_api", reason="the playwright package is not installed"
    )
    package = project / "node_modules" / "@microsoft" / "fetch-event-source" / "lib" / "esm"

    await _empty_all_tables(database_url)
    port = free_port()  # chosen first, so the Link headers name the server's own address
    settings = make_settings(
        base_url=f"http://127.0.0.1:{port}", access_token_ttl=3, sse_max_streams_per_user=1
    )
    async with live_server(settings, port) as live, httpx.AsyncClient(base_url=live.url, timeout=20) as http:
        s = await scene(live.app)
        first = {"Authorization": f"Bearer {token_for(live.app, s.supplier)}"}
        posted = await http.post(
            f"/api/claims/{s.claim.id}/messages", json={"message": MESSAGES[0]}, headers=first
        )
        assert posted.status_code == 201
        hub_statuses: list[int] = []
        async with playwright_api.async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                page = await browser.new_page()
                console: list[str] = []
                page.on("console", lambda message: console.append(message.text))
                page.on("pageerror", lambda error: console.append(str(error)))
                page.on(
                    "response",
                    lambda response: hub_statuses.append(response.status) if HUB in response.url else None,
                )
                await page.route(f"**{PAGES}**", lambda route: _serve(route, package))
                await page.goto(f"{live.url}{PAGES}page.html")
                await page.wait_for_function("typeof window.signIn === 'function'")
                await page.evaluate("([e, p]) => window.signIn(e, p)", [s.customer.email, DEFAULT_PASSWORD])

                # Another stream of the customer holds the only slot: the snippet meets a 429 first.
                holder = {"Authorization": f"Bearer {token_for(live.app, s.customer)}"}
                params = {"topic": messages_topic(s.claim.id)}
                async with http.stream("GET", HUB, params=params, headers=holder) as held:
                    assert held.status_code == 200
                    await page.evaluate(f"(id) => window.{follow}(id)", s.claim.id)
                    await page.wait_for_function("window.seen.length > 0", timeout=10_000)

                    async def refused() -> bool:
                        return 429 in hub_statuses

                    await wait_for(refused, within=20)  # then the slot is free again
                await _post(http, live.app, s.claim.id, s.supplier)
                try:
                    await page.wait_for_function(f"window.seen.length >= {len(MESSAGES)}", timeout=60_000)
                except Exception:
                    state = await page.evaluate("[window.seen, window.failures]")
                    raise AssertionError(f"{state} {hub_statuses} {console}") from None
                await asyncio.sleep(1)  # anything shown twice would come now
                seen = await page.evaluate("window.seen")
                failures = await page.evaluate("window.failures")
                refreshed = await page.evaluate("window.auth.refreshToken !== window.firstRefreshToken")
            finally:
                await browser.close()
    assert failures == []
    assert seen == MESSAGES, json.dumps(seen)
    assert refreshed  # the token expired and was refreshed
    assert 429 in hub_statuses and 401 in hub_statuses and 200 in hub_statuses, hub_statuses
