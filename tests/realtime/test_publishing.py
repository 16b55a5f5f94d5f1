"""Publishing events (app.realtime.publishing): a row in the change's own transaction, delivered once it
commits and never when it rolls back, its id in commit order."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.core.db import commit_hooks
from app.models import Event
from app.realtime.publishing import messages_topic, publish, status_topic
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


def test_the_topics_of_a_claim() -> None:
    assert messages_topic(42) == "claims/42/messages"
    assert status_topic(42) == "claims/42/status"


async def test_the_payload_is_stored_as_compact_json_with_its_text_as_written(app: FastAPI) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        await publish(session, "claims/1/messages", {"text": "ünï ✓ \u2028", "ids": [1, 2]})

    async with app.state.sessionmaker() as session:
        stored = (await session.execute(select(Event.topic, Event.payload))).one()
    assert tuple(stored) == ("claims/1/messages", '{"text":"ünï ✓ \u2028","ids":[1,2]}')


async def test_a_publish_rolled_back_leaves_no_row_and_reaches_no_hook(
    app: FastAPI, is_postgres: bool
) -> None:
    handed: list[tuple[int, str, str]] = []
    async with app.state.sessionmaker() as session:
        hooks = commit_hooks(session)
        own_sink, hooks.publish_event = hooks.publish_event, lambda *event: handed.append(event)
        try:
            async with session.begin():
                await publish(session, "claims/1/status", {"type": "status_update"})
                await session.rollback()
            async with session.begin():
                await publish(session, "claims/1/status", {"type": "committed"})
                assert handed == []  # not before the commit
        finally:
            hooks.publish_event = own_sink

    async with app.state.sessionmaker() as session:
        rows = (await session.execute(select(Event.id, Event.payload))).all()
    assert [payload for _, payload in rows] == ['{"type":"committed"}']
    # One process hands the committed event to the hub itself; on PostgreSQL its NOTIFY wakes the readers.
    assert handed == ([] if is_postgres else [(rows[0].id, "claims/1/status", '{"type":"committed"}')])
