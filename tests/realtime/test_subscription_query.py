"""A subscription's query parameters in both generations of Mercure's names
(app.realtime.subscription_query, contract 20.1).

The Mercure draft's MUST clauses for subscribers, each with its test (the others: tests/realtime/
test_subscriber_access.py for credentials, tests/realtime/test_replay.py for reconnection,
tests/realtime/test_router.py for who receives what):
- GET; `match` / `matchExact` exact, `matchURLPattern` URL Pattern, several in any combination ->
  test_every_matcher_name_selects_its_updates
- a name in the reserved `match` namespace the hub does not support -> 400 ->
  test_an_unknown_name_in_the_match_namespace_is_400
- matcher values with control characters -> 400; over the limits (count, length) -> 400 ->
  test_values_with_controls_or_over_the_limits_are_400
- exact matching is byte-for-byte, no normalisation -> test_exact_matching_is_byte_for_byte
- URL patterns: relative ones resolve against the hub's URL; a pathological pattern costs bounded time ->
  tests/realtime/test_matchers.py
- `*` matches every topic -> test_every_matcher_name_selects_its_updates
- updates are sent as text/event-stream events with an `id` -> test_every_matcher_name_selects_its_updates
- a private update never reaches a subscriber not authorized for it -> tests/realtime/test_router.py
  (test_private_is_its_presence), tests/realtime/test_subscriber_access.py
"""

from __future__ import annotations

import httpx
import pytest

from app.errors import ValidationFailed
from app.realtime.matchers import MAX_MATCHER
from app.realtime.topics import MAX_TOPICS
from app.realtime.updates import UPDATE_PREFIX
from tests.factories.mercure import MERCURE, post_update
from tests.helpers import assert_error
from tests.realtime.support import HUB, LiveServer, answer, scene, subscribe

pytestmark = pytest.mark.settings(**MERCURE)
HUB_URL = "https://hub.example/.well-known/mercure"


@pytest.mark.parametrize(
    ("name", "value", "topic"),
    [
        ("match", "https://shop.example/a", "https://shop.example/a"),
        ("matchExact", "shop-a", "shop-a"),
        ("matchURLPattern", "https://shop.example/books/:id", "https://shop.example/books/12"),
        ("match_urlpattern", "/books/*", "https://hub.example/books/1"),
        ("topic", "https://shop.example/{kind}/{id}", "https://shop.example/films/3"),
        ("match", "*", "anything at all"),
    ],
)
async def test_every_matcher_name_selects_its_updates(
    live: LiveServer, http: httpx.AsyncClient, name: str, value: str, topic: str
) -> None:
    s = await scene(live.app)
    if value.startswith("/"):  # relative: resolved against the hub's URL
        live.app.state.settings.mercure_resource = HUB_URL
    async with subscribe(http, token=s.token, params=[(name, value), ("match", "other")]) as stream:
        if value != "*":
            await post_update(http, [("topic", "https://shop.example/unrelated"), ("data", "no")])
        update = await post_update(http, [("topic", topic), ("data", "yes")])
        message = await stream.event()
        assert stream.response.headers["content-type"].startswith("text/event-stream")
    assert (message.id, message.data) == (update.text, "yes")


async def test_exact_matching_is_byte_for_byte(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    async with subscribe(http, token=s.token, params=[("match", "https://shop.example/caf\u00e9")]) as stream:
        for near in (
            "https://shop.example/cafe\u0301",
            "https://SHOP.example/caf\u00e9",
            "https://shop.example/caf%C3%A9",
        ):
            await post_update(http, [("topic", near)])
        update = await post_update(http, [("topic", "https://shop.example/caf\u00e9")])
        assert (await stream.event()).id == update.text


@pytest.mark.parametrize("name", ["matchUrlPattern", "matchRegex", "MATCH", "match_exact", "matches"])
async def test_an_unknown_name_in_the_match_namespace_is_400(
    live: LiveServer, http: httpx.AsyncClient, name: str
) -> None:
    s = await scene(live.app)
    params = [("topic", "a"), (name, "x")]
    response = await answer(http, params, {"Authorization": f"Bearer {s.token}"})
    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert set(body["details"]["fields"]) == {name}
    assert response.headers["www-authenticate"] == 'Bearer error="invalid_request"'


async def test_values_with_controls_or_over_the_limits_are_400(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    auth = {"Authorization": f"Bearer {s.token}"}
    for params in (
        [("match", "a\x7fb")],
        [("topic", "a\u0085b")],
        [("matchURLPattern", "https://x/(a(?=b))")],  # not a pattern the standard compiles
        [("matchURLPattern", "https://x/" + "a" * MAX_MATCHER)],
        [("match", str(n)) for n in range(MAX_TOPICS + 1)],
    ):
        assert_error(await answer(http, params, auth), 400, "VALIDATION_FAILED")
    async with subscribe(http, token=s.token, params=[("match", str(n)) for n in range(MAX_TOPICS)]):
        pass
    assert_error(await http.get(HUB, headers=auth), 400, "VALIDATION_FAILED")


def test_the_names_a_subscription_is_indexed_under() -> None:
    from app.realtime.subscription_query import parse_query

    wanted = parse_query(
        [
            ("topic", "claims/1/messages"),
            ("match", "https://example.com/claims/1/messages"),
            ("match", "a"),
            ("matchExact", "a"),
            ("topic", "b"),
            ("topic", "c/{x}"),
            ("lastEventID", "5"),
            ("other", "ignored"),
        ],
        HUB_URL,
    )
    assert wanted.names == ["claims/1/messages", UPDATE_PREFIX + "a", UPDATE_PREFIX + "b"]
    assert len(wanted.matchers) == 1 and wanted.matchers[0].matches("c/1")
    with pytest.raises(ValidationFailed):
        parse_query([("topic", "claims/x")], HUB_URL)  # the service's namespace: its topics only
