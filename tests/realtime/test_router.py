"""Publishing through the hub (app.realtime.router, contract 20.2 and 20.3), against a live server.

The Mercure draft's (draft-dunglas-mercure-08) MUST clauses for publishers, each with its test here:
- the request is form-encoded, exactly one `topic`, else 400 -> test_exactly_one_topic,
  test_a_body_that_is_not_a_form_is_refused
- the topic has no control characters (400) -> test_fields_the_draft_forbids_are_400
- the topic must not address the reserved hub namespace (403) -> test_the_services_own_topics_are_403
- `private` present marks the update private, whatever its value -> test_private_is_its_presence
- an `id` starting with `#` or holding LF, CR, NUL -> 400 -> test_fields_the_draft_forbids_are_400
- no `id`: the hub generates an IRI -> test_a_published_update_reaches_its_subscribers
- `type` with CR or LF -> 400; `retry` not ASCII digits -> 400 -> test_fields_the_draft_forbids_are_400
- success: 2xx, the body the update's id -> test_a_published_update_reaches_its_subscribers
- a request over the size limits -> 413 -> test_a_body_over_the_limit_is_413
- the publisher presents a token granting `publish` on the topic, else 403 insufficient_scope and no
  dispatch -> test_a_token_without_publish_on_the_topic_is_403
- no token -> 401 with a bare `WWW-Authenticate: Bearer` -> test_no_token_is_401_without_an_error_code
- a token failing validation (signature, key of the other role, exp, aud) -> 401 invalid_token ->
  test_a_token_that_does_not_hold_is_401_invalid_token
- authorization_details: typ at+jwt, an invalid detail rejects the whole token ->
  test_authorization_details_grant_publish, tests/realtime/test_mercure_tokens.py
- data, id, type and retry reach the subscriber as SSE fields; data one `data:` line per line ->
  test_a_published_update_reaches_its_subscribers
Subscribers' clauses: tests/realtime/test_subscription_query.py and tests/realtime/test_replay.py.
"""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from app.realtime.matchers import EXACT, URL_PATTERN
from tests.factories.mercure import (
    MERCURE,
    PUBLISHER_KEY,
    SUBSCRIBER_KEY,
    detail_token,
    post_update,
    released_token,
)
from tests.factories.realtime import new_message, publish_event
from tests.helpers import assert_error
from tests.realtime.support import LiveServer, scene, subscribe

pytestmark = pytest.mark.settings(**MERCURE)


@pytest.mark.settings()
async def test_publishing_is_off_without_a_publisher_key(live: LiveServer, http: httpx.AsyncClient) -> None:
    response = await post_update(http, [("topic", "https://shop.example/a"), ("data", "x")])
    assert_error(response, 404, "NOT_FOUND")


async def test_a_published_update_reaches_its_subscribers(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    topic = "https://shop.example/orders/7"
    async with subscribe(http, topic, token=s.token) as stream:
        fields = [("topic", topic), ("data", "one\r\ntwo\rthree\nfour"), ("type", "order"), ("retry", "5000")]
        response = await post_update(http, fields)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/plain")
        assert response.text.startswith("urn:uuid:")
        message = await stream.event()
    assert (message.id, message.event, message.retry) == (response.text, "order", 5000)
    assert message.data == "one\ntwo\nthree\nfour"


async def test_the_given_id_is_the_events_id_and_a_used_one_is_409(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    async with subscribe(http, "shop/a", token=s.token) as stream:
        response = await post_update(http, [("topic", "shop/a"), ("data", ""), ("id", "urn:example:1")])
        assert response.text == "urn:example:1"
        message = await stream.event()
    assert (message.id, message.data) == ("urn:example:1", "")
    again = await post_update(http, [("topic", "shop/b"), ("id", "urn:example:1")])
    assert_error(again, 409, "UPDATE_ID_USED")


async def test_exactly_one_topic(live: LiveServer, http: httpx.AsyncClient) -> None:
    for fields in ([("data", "x")], [("topic", "a"), ("topic", "b")]):
        response = await post_update(http, fields)
        assert_error(response, 400, "VALIDATION_FAILED")
        assert response.headers["www-authenticate"] == 'Bearer error="invalid_request"'


@pytest.mark.parametrize(
    "fields",
    [
        [("topic", "a\x01b")],
        [("topic", "a"), ("id", "#5")],
        [("topic", "a"), ("id", "a\nb")],
        [("topic", "a"), ("id", "a\x00b")],
        [("topic", "a"), ("id", "42")],
        [("topic", "a"), ("type", "a\rb")],
        [("topic", "a"), ("retry", "1s")],
        [("topic", "a"), ("retry", "-1")],
    ],
)
async def test_fields_the_draft_forbids_are_400(
    live: LiveServer, http: httpx.AsyncClient, fields: list[tuple[str, str]]
) -> None:
    assert_error(await post_update(http, fields), 400, "VALIDATION_FAILED")


@pytest.mark.parametrize(
    "topic",
    [
        "claims/1/messages",
        "https://anywhere.example/claims/1/status",
        "/claims/2",
        "access/changed",
        "/.well-known/mercure/subscriptions/Exact/a/b",
        "https://other.example/.well-known/mercure",
        "mercure/subscriptions",  # relative: resolved against the hub's URL
        "../.well-known/mercure",
    ],
)
async def test_the_services_own_topics_are_403(live: LiveServer, http: httpx.AsyncClient, topic: str) -> None:
    response = await post_update(http, [("topic", topic), ("data", "forged")])
    assert_error(response, 403, "INSUFFICIENT_SCOPE")
    assert response.headers["www-authenticate"] == 'Bearer error="insufficient_scope"'


async def test_a_body_over_the_limit_is_413(live: LiveServer, http: httpx.AsyncClient) -> None:
    response = await post_update(http, [("topic", "a"), ("data", "x" * 70_000)])
    assert_error(response, 413, "PAYLOAD_TOO_LARGE")
    assert_error(await post_update(http, [("topic", "t" * 300)]), 413, "PAYLOAD_TOO_LARGE")


async def test_a_body_that_is_not_a_form_is_refused(live: LiveServer, http: httpx.AsyncClient) -> None:
    headers = {"Content-Type": "application/json"}
    response = await post_update(http, [], headers=headers, content=b'{"topic": "a"}')
    assert_error(response, 415, "UNSUPPORTED_MEDIA_TYPE")
    bad = await post_update(http, [], content=b"topic=%ff")
    assert_error(bad, 400, "VALIDATION_FAILED")


async def test_no_token_is_401_without_an_error_code(live: LiveServer, http: httpx.AsyncClient) -> None:
    response = await http.post("/.well-known/mercure", data={"topic": "a"})
    assert_error(response, 401, "AUTH_REQUIRED")
    assert response.headers["www-authenticate"] == "Bearer"


async def test_a_token_that_does_not_hold_is_401_invalid_token(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    resource = live.app.state.settings.hub_resource
    for token in (
        "not-a-jwt",
        released_token(key=SUBSCRIBER_KEY),  # the other role's key
        released_token(exp=int(time.time()) - 10),
        released_token(nbf=int(time.time()) + 600),
        released_token(aud="https://another-hub.example/.well-known/mercure"),
        detail_token(PUBLISHER_KEY, ["publish"], [{"match": "*"}], typ="JWT"),  # not an access token
        detail_token(PUBLISHER_KEY, ["publish", "delete"], [{"match": "*"}]),
    ):
        response = await post_update(http, [("topic", "a")], token=token)
        assert_error(response, 401, "AUTH_TOKEN_INVALID")
        assert response.headers["www-authenticate"] == 'Bearer error="invalid_token"'
    ok = await post_update(http, [("topic", "a")], token=released_token(aud=[resource, "other"]))
    assert ok.status_code == 200


async def test_a_token_without_publish_on_the_topic_is_403(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    token = released_token(publish=["https://shop.example/books/{id}"])
    async with subscribe(http, "https://shop.example/films/1", token=s.token) as stream:
        refused = await post_update(http, [("topic", "https://shop.example/films/1")], token=token)
        assert_error(refused, 403, "INSUFFICIENT_SCOPE")
        with pytest.raises(TimeoutError):
            await stream.event(within=0.5)
    allowed = await post_update(http, [("topic", "https://shop.example/books/1")], token=token)
    assert allowed.status_code == 200


async def test_authorization_details_grant_publish(live: LiveServer, http: httpx.AsyncClient) -> None:
    books = {"match": "https://shop.example/books/:id", "matchType": URL_PATTERN}
    token = detail_token(PUBLISHER_KEY, ["publish"], [books, {"match": "news", "matchType": EXACT}])
    for topic, status in (("https://shop.example/books/1", 200), ("news", 200), ("news/2", 403)):
        response = await post_update(http, [("topic", topic)], token=token)
        assert response.status_code == status, response.text
    subscribe_only = detail_token(PUBLISHER_KEY, ["subscribe"], [{"match": "*"}])
    assert (await post_update(http, [("topic", "news")], token=subscribe_only)).status_code == 403


async def test_private_is_its_presence(live: LiveServer, http: httpx.AsyncClient) -> None:
    """A private update (`private` with any value, even empty) never reaches a subscriber whose token does
    not grant it; the public one after it does."""
    s = await scene(live.app)
    async with subscribe(http, "shop/p", token=s.token) as stream:
        for value in ("", "off", "false"):
            assert (await post_update(http, [("topic", "shop/p"), ("private", value)])).status_code == 200
        public = await post_update(http, [("topic", "shop/p"), ("data", "public")])
        message = await stream.event()
    assert (message.id, message.data) == (public.text, "public")


async def test_updates_and_the_services_events_share_one_order(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    """Published updates and claim events on one stream, in commit order, each framed its own way."""
    s = await scene(live.app)
    topic = f"claims/{s.claim.id}/messages"
    async with subscribe(http, topic, "shop/o", token=s.token) as stream:
        first, _ = await publish_event(live.app, topic, new_message(s.claim.id, 1, "a\nb"))
        update = await post_update(http, [("topic", "shop/o"), ("data", "x")])
        second, _ = await publish_event(live.app, topic, new_message(s.claim.id, 2))
        seen = [await stream.event() for _ in range(3)]
    assert [m.id for m in seen] == [str(first), update.text, str(second)]
    assert seen[0].data is not None and "\\n" in seen[0].data and seen[0].event is None


async def test_a_wildcard_subscriber_never_receives_claim_events(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    token = detail_token(SUBSCRIBER_KEY, ["subscribe"], [{"match": "*"}])
    async with subscribe(http, "*", token=token) as stream:
        await publish_event(live.app, f"claims/{s.claim.id}/messages", new_message(s.claim.id, 1))
        update = await post_update(http, [("topic", "shop/w"), ("private", "on")])
        message = await stream.event()
        await asyncio.sleep(0)
    assert message.id == update.text


@pytest.mark.postgres_only
async def test_a_published_update_reaches_the_subscribers_of_another_process(
    live: LiveServer, http: httpx.AsyncClient, second: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    async with subscribe(second, "https://shop.example/{id}", token=s.token) as stream:
        update = await post_update(http, [("topic", "https://shop.example/9"), ("data", "across")])
        message = await stream.event()
    assert (message.id, message.data) == (update.text, "across")
