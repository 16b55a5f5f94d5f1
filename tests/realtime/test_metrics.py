"""The hub's series (contract 14.1), counted where its streams are answered (ahead of FastAPI's stack)."""

from __future__ import annotations

import httpx
import pytest

from app.realtime.publishing import messages_topic, publish
from tests.factories.realtime import new_message
from tests.helpers import assert_error
from tests.metrics.scrape import requests, scrape, value
from tests.realtime.support import HUB, LiveServer, scene, subscribe


@pytest.mark.settings(sse_queue_size=1, sse_max_streams_per_user=1)
async def test_open_streams_overflows_and_refusals_are_counted(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    before = await scrape(http)
    async with subscribe(http, topic, token=s.token) as stream:
        during = await scrape(http)
        refused = await http.get(HUB, params={"topic": topic}, headers={"Authorization": f"Bearer {s.token}"})
        assert_error(refused, 429, "RATE_LIMITED")
        # Two events in one commit reach the hub together: the second finds the queue of one full.
        async with live.app.state.sessionmaker() as session, session.begin():
            await publish(session, topic, new_message(s.claim.id, 1))
            await publish(session, topic, new_message(s.claim.id, 2))
        await stream.end()
    after = await scrape(http)

    assert value(during, "warranty_hub_streams") == value(before, "warranty_hub_streams") + 1
    overflows = "warranty_hub_overflow_disconnects_total"
    assert value(after, overflows) == value(before, overflows) + 1
    hits = "warranty_throttle_hits_total"
    assert value(after, hits, limit="hub_streams") == value(before, hits, limit="hub_streams") + 1
    for status in (200, 429):
        assert requests(after, "GET", HUB, status) == requests(before, "GET", HUB, status) + 1
