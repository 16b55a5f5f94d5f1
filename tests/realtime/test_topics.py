"""Hub topics (app.realtime.topics): the two kinds of a claim, as names or URLs ending so, at least one and at
most fifty per subscription."""

from __future__ import annotations

import httpx
import pytest

from app.errors import ValidationFailed
from app.realtime.publishing import messages_topic, status_topic
from app.realtime.topics import MAX_TOPICS, claim_id_of, parse_topic
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
    # What is not a claim topic is a published update's topic (contract 20) unless it is in the claims/
    # namespace: those are the service's own, and must name one of its topics.
    for bad in (
        "claims/abc/messages",
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


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("claims/42/messages", "claims/42/messages"),
        (" claims/42/status/ ", "claims/42/status"),
        ("https://example.com/claims/42/messages?from=app#top", "claims/42/messages"),
        ("https://example.com/base/claims/7/status", "claims/7/status"),
    ],
)
def test_a_topic_is_read_as_its_canonical_name(raw: str, name: str) -> None:
    topic = parse_topic(raw)
    assert topic.name == name
    assert claim_id_of(topic.name) == topic.claim_id == int(name.split("/")[1])


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "claims/42",
        "claims/42/other",
        "claims/-1/status",
        "claims/1234567890123456789/messages",  # more digits than an id has
        "x/claims/42/messages",  # a path ending so, but not a URL
        "https://example.com/claims/42/messages/more",
    ],
)
def test_anything_else_is_a_400_naming_the_topic(raw: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        parse_topic(raw)
    assert set((refused.value.details or {})["fields"]) == {"topic"}
