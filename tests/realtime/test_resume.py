"""The event id a REST read corresponds to (the `Link` hand-off's last-event-id)."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from sqlalchemy import delete

from app.core.db import use_one_snapshot
from app.models import Event
from app.realtime.publishing import messages_topic
from app.realtime.resume import resume_point
from tests.factories.realtime import new_message, publish_event
from tests.realtime.support import LiveServer, scene, subscribe


async def test_no_event_yet_resumes_from_the_earliest(app: FastAPI) -> None:
    async with app.state.read_sessionmaker() as session:
        assert await resume_point(session) == "earliest"


async def test_the_newest_committed_event_is_the_resume_point(app: FastAPI) -> None:
    await publish_event(app, "claims/1/messages", {"type": "a"})
    newest, _ = await publish_event(app, "claims/2/status", {"type": "b"})

    async with app.state.read_sessionmaker() as session:
        assert await resume_point(session) == str(newest)


async def test_one_snapshot_keeps_the_resume_point_with_the_reads_around_it(app: FastAPI) -> None:
    before, _ = await publish_event(app, "claims/1/messages", {"type": "a"})

    async with app.state.read_sessionmaker() as session:
        await use_one_snapshot(session)
        assert await resume_point(session) == str(before)
        # Committed while the read is under way: after its snapshot, so the stream's news, not the read's.
        await publish_event(app, "claims/1/messages", {"type": "b"})
        assert await resume_point(session) == str(before)
        await session.commit()


async def test_resuming_from_an_event_deleted_since_replays_only_what_came_after(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    before = await publish_event(live.app, topic, new_message(s.claim.id, 1))
    handed_out, _ = await publish_event(live.app, "claims/999/status", {"type": "status_update"})
    after = await publish_event(live.app, topic, new_message(s.claim.id, 2))
    async with live.app.state.sessionmaker() as session, session.begin():  # as a deleted claim's events go
        await session.execute(delete(Event).where(Event.id == handed_out))

    async with subscribe(http, topic, token=s.token, headers={"Last-Event-ID": str(handed_out)}) as stream:
        assert await stream.events(1) == [after]  # not `before` again
    assert before[0] < handed_out
