"""Hub topics (app.realtime.topics): the two kinds of a claim, as names or URLs ending so, at least one and at
most fifty per subscription."""

from __future__ import annotations

import httpx

from app.realtime.publishing import messages_topic, status_topic
from app.realtime.topics import MAX_TOPICS
from tests.factories.realtime import new_message, publish_event
from tests.helpers import assert_error
from tests.realtime.support import HUB, LiveServer, answer, scene, subscribe


async def test_full_url_topics_are_accepted(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    async with subscribe(http, f"https://example.com/claims/{s.claim.id}/messages", token=s.token) as stream:
        sent = await publish_event(live.app, messages_topic(s.claim.id), new_message(s.claim.id, 1))
        assert await stream.events(1) == [sent]


async def test_topics_are_validated(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    auth = {"Authorization": f"Bearer {s.token}"}

    none = assert_error(await http.get(HUB, headers=auth), 400, "VALIDATION_FAILED")
    assert set(none["details"]["fields"]) == {"topic"}
    for bad in (
        "claims/abc/messages",
        "products/1",
        f"claims/{s.claim.id}/other",
        f"x/claims/{s.claim.id}/status",
    ):
        response = await http.get(HUB, params={"topic": bad}, headers=auth)
        assert_error(response, 400, "VALIDATION_FAILED")


async def test_at_most_fifty_topics(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    topics = [messages_topic(s.claim.id), status_topic(s.claim.id)] * (MAX_TOPICS // 2)
    async with subscribe(http, *topics, token=s.token):
        pass
    params = [("topic", topic) for topic in [*topics, messages_topic(s.claim.id)]]
    response = await answer(http, params, {"Authorization": f"Bearer {s.token}"})
    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert "50" in body["details"]["fields"]["topic"]
