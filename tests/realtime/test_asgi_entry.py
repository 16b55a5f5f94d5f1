"""The hub's HTTP edge (app.realtime.asgi_entry), which answers ahead of the API's middleware: the request
id, CORS, the error body, disconnects, and the route's place in the OpenAPI document."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from app.realtime.publishing import messages_topic
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


async def test_other_methods_are_405(live: LiveServer, http: httpx.AsyncClient) -> None:
    response = await http.post(HUB, params={"topic": "claims/1/messages"})
    assert_error(response, 405, "METHOD_NOT_ALLOWED")
    assert response.headers["x-request-id"]


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


async def test_the_openapi_document_describes_the_hub(http: httpx.AsyncClient) -> None:
    operation = (await http.get("/api/openapi.json")).json()["paths"][HUB]["get"]
    assert "Server-Sent Events" in operation["summary"] + operation["description"]
    names = {parameter["name"] for parameter in operation["parameters"]}
    assert names == {"topic", "lastEventID", "Last-Event-ID"}  # the query token is a security scheme
    assert "text/event-stream" in operation["responses"]["200"]["content"]
    assert {"400", "401", "403", "429"} <= set(operation["responses"])
