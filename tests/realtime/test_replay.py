"""Reconnection for Mercure subscribers (app.realtime.replay, contract 20.1 and 20.3): a published update's
id is a point to resume from, `last_event_id` beside `lastEventID` with the header winning, and replayed
private updates re-checked against the current token.

The draft's MUST clauses on reconnection: events carry an `id` (every test here); the hub accepts
`lastEventID` in the query, the header taking precedence -> test_the_header_wins_over_both_parameters;
replayed events are re-evaluated against the current token -> test_private_updates_replay_only_where_granted;
a `Last-Event-ID` response header when one was asked for -> test_resuming_after_a_published_update.
"""

from __future__ import annotations

import httpx
import pytest

from tests.factories.mercure import MERCURE, SUBSCRIBER_KEY, detail_token, post_update
from tests.helpers import assert_error
from tests.realtime.support import HUB, EventReader, LiveServer, answer, scene, subscribe

pytestmark = pytest.mark.settings(**MERCURE)


async def _publish(http: httpx.AsyncClient, topic: str, *extra: tuple[str, str]) -> str:
    response = await post_update(http, [("topic", topic), *extra])
    assert response.status_code == 200, response.text
    return response.text


async def _ids_through(stream: EventReader, last: str) -> list[str]:
    """The ids of the published updates the stream sends, up to `last`."""
    ids: list[str] = []
    while not ids or ids[-1] != last:
        message = await stream.event()
        if message.id is not None and not message.id.isdigit():
            ids.append(message.id)
    return ids


async def test_resuming_after_a_published_update(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    first = await _publish(http, "shop/r", ("id", "urn:example:first"))
    second = await _publish(http, "shop/r")
    third = await _publish(http, "shop/other")
    for name in ("lastEventID", "last_event_id"):
        async with subscribe(http, "shop/r", "shop/other", token=s.token, params=[(name, first)]) as stream:
            assert [(await stream.event()).id for _ in range(2)] == [second, third]
            assert stream.response.headers["last-event-id"].isdigit()
    async with subscribe(http, "shop/{x}", token=s.token, headers={"Last-Event-ID": "earliest"}) as stream:
        assert [(await stream.event()).id for _ in range(3)] == [first, second, third]


async def test_the_header_wins_over_both_parameters(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    first = await _publish(http, "shop/h")
    second = await _publish(http, "shop/h")
    params = [("lastEventID", "earliest"), ("last_event_id", "earliest")]
    async with subscribe(
        http, "shop/h", token=s.token, params=params, headers={"Last-Event-ID": first}
    ) as stream:
        assert (await stream.event()).id == second


async def test_an_unknown_id_is_400(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    auth = {"Authorization": f"Bearer {s.token}"}
    response = await answer(http, [("topic", "shop/u"), ("last_event_id", "urn:example:never")], auth)
    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert set(body["details"]["fields"]) == {"last_event_id"}


async def test_private_updates_replay_only_where_granted(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    secret = await _publish(http, "shop/replayed", ("private", "on"))
    public = await _publish(http, "shop/replayed")
    # This test's own topic, not "*": the history may hold other tests' public updates.
    async with subscribe(
        http, "shop/replayed", token=s.token, params=[("lastEventID", "earliest")]
    ) as stream:
        assert await _ids_through(stream, public) == [public]
    granted = detail_token(SUBSCRIBER_KEY, ["subscribe"], [{"match": "shop/replayed"}])
    async with subscribe(
        http, "shop/replayed", token=granted, params=[("lastEventID", "earliest")]
    ) as stream:
        assert await _ids_through(stream, public) == [secret, public]
    assert (await http.get(HUB, params={"topic": "shop/replayed"})).status_code == 401
