"""The hand-off from a REST read to the stream (app.realtime.handoff): `Link` headers on the claim and
message reads, exact while messages are being posted, and kept with a cached page."""

from __future__ import annotations

import asyncio
import json
import re

import httpx
import pytest

from app.realtime.publishing import status_topic
from tests.realtime.support import HUB, LiveServer, scene, subscribe, token_for

LINK = re.compile(r'<([^>]+)>;\s*rel="mercure";\s*last-event-id="([^"]+)",\s*<([^>]+)>;\s*rel="self"')
READS = ("/api/claims/{id}/messages", "/api/claims/messages/{id}", "/api/claims/{id}")
POSTS = 40


def handoff(response: httpx.Response) -> tuple[str, str, str]:
    match = LINK.fullmatch(response.headers["link"])
    assert match is not None, response.headers["link"]
    return match.group(1), match.group(2), match.group(3)


def message_ids(read: httpx.Response) -> set[str]:
    body = read.json()
    items = body["messages"] if isinstance(body, dict) else body
    return {str(item["id"]) for item in items}


async def test_every_read_links_the_hub_and_its_topic(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    headers = {"Authorization": f"Bearer {s.token}", "Origin": "http://app.example"}
    for path in READS:
        response = await http.get(path.format(id=s.claim.id), headers=headers)
        assert response.status_code == 200
        hub, last_event_id, topic = handoff(response)
        assert hub == f"{live.app.state.settings.base_url}{HUB}"
        assert last_event_id == "earliest"  # nothing has happened yet
        assert topic == f"{live.app.state.settings.base_url}/api/claims/{s.claim.id}/messages"
    # The topic in rel="self" is one the hub accepts.
    async with subscribe(http, topic, token=s.token) as stream:
        assert stream.response.status_code == 200


@pytest.mark.settings(cors_origins="http://app.example")
async def test_a_browser_on_another_origin_can_read_the_link(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    response = await http.get(
        f"/api/claims/{s.claim.id}",
        headers={"Authorization": f"Bearer {s.token}", "Origin": "http://app.example"},
    )
    assert "link" in response.headers["access-control-expose-headers"].lower()


async def test_read_then_subscribe_sees_every_later_message_exactly_once(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    """One client posts messages while another reads (each path shape in turn), then subscribes with the
    read's last-event-id: what it read and what it then receives are every message, each once."""
    s = await scene(live.app)
    supplier = {"Authorization": f"Bearer {token_for(live.app, s.supplier)}"}
    customer = {"Authorization": f"Bearer {s.token}"}

    async def post_all() -> list[str]:
        posted = []
        async with httpx.AsyncClient(base_url=live.url, timeout=10) as writer:
            for n in range(POSTS):
                sent = await writer.post(
                    f"/api/claims/{s.claim.id}/messages", json={"message": f"m{n}"}, headers=supplier
                )
                assert sent.status_code == 201, sent.text
                posted.append(str(sent.json()["id"]))
        return posted

    async def read_then_follow(path: str, delay: float, posting: asyncio.Task[list[str]]) -> None:
        await asyncio.sleep(delay)
        read = await http.get(path.format(id=s.claim.id), headers=customer)
        assert read.status_code == 200
        seen = message_ids(read)
        _hub, last_event_id, topic = handoff(read)
        received: list[str] = []
        event_ids: list[int] = []
        async with subscribe(
            http, topic, status_topic(s.claim.id), token=s.token, params=[("lastEventID", last_event_id)]
        ) as stream:
            posted = set(await asyncio.shield(posting))  # the stream buffers what arrives meanwhile
            while not posted <= seen | set(received):
                try:
                    message = await stream.event(within=20)
                except TimeoutError:
                    missing = posted - seen - set(received)
                    raise AssertionError(
                        f"{path} at {last_event_id}: never received {sorted(missing)}"
                    ) from None
                payload = json.loads(message.data or "{}")
                event_ids.append(int(message.id or 0))
                if payload.get("type") == "new_message":
                    received.append(str(payload["message"]["id"]))
        assert event_ids == sorted(set(event_ids))  # increasing, none twice
        assert len(received) == len(set(received)), "a message arrived twice"
        assert seen.isdisjoint(received), f"read and then streamed again: {seen & set(received)}"
        assert seen | set(received) == posted, "a message was missed"

    posting = asyncio.create_task(post_all())
    delays = [0.0, 0.05, 0.1, 0.2, 0.3, 0.5]
    await asyncio.gather(*(read_then_follow(READS[n % 3], delay, posting) for n, delay in enumerate(delays)))
    await posting


async def test_a_cached_page_links_from_the_read_that_computed_it(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    """A warm page cache answers before routing; its `Link` is the one computed with the page, which holds
    while no message of the claim changed, and moves on with the first read after a change."""
    s = await scene(live.app)
    customer = {"Authorization": f"Bearer {s.token}"}
    supplier = {"Authorization": f"Bearer {token_for(live.app, s.supplier)}"}
    path = f"/api/claims/{s.claim.id}/messages?page=1&limit=20"
    await http.post(f"/api/claims/{s.claim.id}/messages", json={"message": "first"}, headers=supplier)

    first = await http.get(path, headers=customer)
    stored = len(live.app.state.page_cache._pages)  # the page is in the cache
    again = await http.get(path, headers=customer)
    assert stored >= 1 and again.content == first.content
    assert again.headers["link"] == first.headers["link"]
    _hub, read_at, topic = handoff(again)

    sent = await http.post(f"/api/claims/{s.claim.id}/messages", json={"message": "second"}, headers=supplier)
    after = await http.get(path, headers=customer)
    assert [item["message"] for item in after.json()["data"]] == ["first", "second"]
    _hub, moved_to, _topic = handoff(after)
    assert int(moved_to) > int(read_at)

    async with subscribe(http, topic, token=s.token, params=[("lastEventID", read_at)]) as stream:
        event = json.loads((await stream.event()).data or "{}")
    assert event["message"]["id"] == str(sent.json()["id"])
