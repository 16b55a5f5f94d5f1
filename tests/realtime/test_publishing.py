"""Publishing events (app.realtime.publishing): a row in the change's own transaction, delivered once it
commits and never when it rolls back, its id in commit order."""

from __future__ import annotations

import httpx
import pytest

from app.realtime.publishing import messages_topic, publish
from tests.factories.realtime import new_message, publish_event
from tests.realtime.support import LiveServer, scene, subscribe


async def test_a_rolled_back_publish_is_never_delivered(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    async with subscribe(http, topic, token=s.token) as stream:
        async with live.app.state.sessionmaker() as session, session.begin():
            await publish(session, topic, new_message(s.claim.id, 1, "never"))
            await session.rollback()
        committed = await publish_event(live.app, topic, new_message(s.claim.id, 2, "committed"))
        assert await stream.events(1) == [committed]


@pytest.mark.postgres_only  # ids given at commit (migration 0006)
async def test_an_event_written_first_and_committed_last_comes_last_with_a_higher_id(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    async with subscribe(http, topic, token=s.token) as stream:
        async with live.app.state.sessionmaker() as slow:
            await slow.begin()
            early = await publish(slow, topic, new_message(s.claim.id, 1, "takes its time"))
            await slow.flush()  # its row is written before the other event's
            late = await publish_event(live.app, topic, new_message(s.claim.id, 2, "commits first"))
            assert await stream.events(1) == [late]
            await slow.commit()
        [(last_id, payload)] = await stream.events(1)
        assert payload == early.payload and last_id > late[0]
    # Resuming from the first event received gives the second, once.
    async with subscribe(http, topic, token=s.token, headers={"Last-Event-ID": str(late[0])}) as resumed:
        assert await resumed.events(1) == [(last_id, early.payload)]
