"""The hub's HTTP edge (app.realtime.asgi_entry), which answers ahead of the API's middleware: the stream's
headers and replay, the request id, CORS, the error body, the 429 over the per-user cap, disconnects, and
no database connection held while streaming."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from app.realtime.publishing import messages_topic, status_topic
from tests.factories.realtime import new_message, publish_event
from tests.helpers import assert_error, wait_for
from tests.realtime.support import HUB, LiveServer, scene, subscribe

ORIGIN = "http://app.example"


async def test_the_stream_carries_the_request_id(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    async with subscribe(http, topic, token=s.token, headers={"X-Request-ID": "sse-42"}) as stream:
        assert stream.response.headers["x-request-id"] == "sse-42"
    async with subscribe(http, topic, token=s.token) as stream:
        assert len(stream.response.headers["x-request-id"]) == 32


@pytest.mark.settings(cors_origins=ORIGIN)
async def test_errors_have_the_contract_body_the_request_id_and_cors(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    response = await http.get(
        HUB, params={"topic": messages_topic(s.claim.id)}, headers={"Origin": ORIGIN, "X-Request-ID": "e-1"}
    )
    assert_error(response, 401, "AUTH_REQUIRED")
    assert response.headers["x-request-id"] == "e-1"
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.headers["access-control-allow-origin"] == ORIGIN
    assert response.headers["access-control-allow-credentials"] == "true"


@pytest.mark.settings(cors_origins=ORIGIN)
async def test_cors_preflight_on_the_hub(live: LiveServer, http: httpx.AsyncClient) -> None:
    request = {"Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "last-event-id"}
    allowed = await http.options(HUB, headers={"Origin": ORIGIN, **request})
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == ORIGIN
    assert allowed.headers["access-control-allow-credentials"] == "true"
    assert "GET" in allowed.headers["access-control-allow-methods"]
    assert "last-event-id" in allowed.headers["access-control-allow-headers"].lower()

    refused = await http.options(HUB, headers={"Origin": "http://elsewhere.example", **request})
    assert refused.status_code == 400
    assert "access-control-allow-origin" not in refused.headers


@pytest.mark.settings(cors_origins=ORIGIN)
async def test_a_stream_for_another_origin_carries_no_cors_headers(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    async with subscribe(
        http, topic, token=s.token, headers={"Origin": "http://elsewhere.example"}
    ) as stream:
        assert "access-control-allow-origin" not in stream.response.headers


async def test_a_client_that_goes_away_is_unsubscribed(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    hub = live.app.state.hub
    async with subscribe(http, messages_topic(s.claim.id), token=s.token) as stream:
        assert await stream.next() is not None
        assert hub.subscriber_count == 1
    await wait_for(lambda: asyncio.sleep(0, hub.subscriber_count == 0))
    # The hub still delivers to nobody without trouble.
    await publish_event(live.app, messages_topic(s.claim.id), new_message(s.claim.id, 1))


async def test_an_unexpected_error_is_a_500_with_the_request_id(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)

    def broken() -> None:
        raise RuntimeError("the database went away")

    live.app.state.read_sessionmaker = broken  # what the hub authorizes subscriptions with
    response = await http.get(
        HUB,
        params={"topic": messages_topic(s.claim.id)},
        headers={"Authorization": f"Bearer {s.token}", "X-Request-ID": "boom-1"},
    )
    body = assert_error(response, 500, "INTERNAL_ERROR")
    assert body["details"] == {"requestId": "boom-1"}
    assert response.headers["x-request-id"] == "boom-1"


async def test_stream_delivers_stored_payloads_with_ids(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    before, _ = await publish_event(live.app, messages_topic(s.claim.id), new_message(s.claim.id, 1))

    async with subscribe(http, messages_topic(s.claim.id), status_topic(s.claim.id), token=s.token) as stream:
        headers = stream.response.headers
        assert headers["content-type"].startswith("text/event-stream")
        assert headers["cache-control"] == "no-cache"
        assert headers["x-accel-buffering"] == "no"
        assert headers["last-event-id"] == str(before)
        first = await publish_event(live.app, messages_topic(s.claim.id), new_message(s.claim.id, 2, "Hi ✓"))
        status = {
            "type": "status_update",
            "claimId": s.claim.id,
            "status": "in_progress",
            "updatedAt": "2026-01-15T10:00:00Z",
        }
        second = await publish_event(live.app, status_topic(s.claim.id), status)

        assert await stream.events(2) == [first, second]
    assert json.loads(second[1]) == status


async def test_an_open_stream_holds_no_database_connection(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    pool = live.app.state.engine.pool
    async with subscribe(http, messages_topic(s.claim.id), token=s.token) as stream:
        assert await stream.next() is not None  # a heartbeat: the route is long done
        await wait_for(lambda: asyncio.sleep(0, pool.checkedout() == 0))
        assert live.app.state.hub.subscriber_count == 1


async def test_reconnect_with_last_event_id_gets_exactly_the_missed_events(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    async with subscribe(http, topic, token=s.token) as stream:
        seen = [await publish_event(live.app, topic, new_message(s.claim.id, 1))]
        assert await stream.events(1) == seen
    missed = [await publish_event(live.app, topic, new_message(s.claim.id, n)) for n in (2, 3)]
    await publish_event(live.app, status_topic(s.claim.id), {"type": "status_update"})  # not subscribed

    async with subscribe(http, topic, token=s.token, headers={"Last-Event-ID": str(seen[0][0])}) as stream:
        live_one = await publish_event(live.app, topic, new_message(s.claim.id, 4))
        assert await stream.events(3) == [*missed, live_one]
        next_one = await publish_event(live.app, topic, new_message(s.claim.id, 5))
        assert await stream.events(1) == [next_one]  # the next is the new one: no duplicate

    # The query parameter works the same when there is no header.
    async with subscribe(http, topic, token=s.token, params=[("lastEventID", str(missed[1][0]))]) as stream:
        assert (await stream.events(1))[0][0] == live_one[0]


@pytest.mark.settings(cors_origins="http://app.example")
async def test_cors_headers_with_credentials_on_the_stream(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    async with subscribe(
        http, messages_topic(s.claim.id), token=s.token, headers={"Origin": "http://app.example"}
    ) as stream:
        assert stream.response.headers["access-control-allow-origin"] == "http://app.example"
        assert stream.response.headers["access-control-allow-credentials"] == "true"
        assert "last-event-id" in stream.response.headers["access-control-expose-headers"].lower()


@pytest.mark.settings(sse_max_streams_per_user=1)
async def test_streams_per_user_are_capped(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    async with subscribe(http, topic, token=s.token):
        response = await http.get(
            HUB, params={"topic": topic}, headers={"Authorization": f"Bearer {s.token}"}
        )
        assert_error(response, 429, "RATE_LIMITED")
        assert int(response.headers["retry-after"]) >= 1

    # Once closed, the slot is free again.

    async def reopened() -> bool:
        async with http.stream(
            "GET", HUB, params={"topic": topic}, headers={"Authorization": f"Bearer {s.token}"}
        ) as r:
            return r.status_code == 200

    await wait_for(reopened)
