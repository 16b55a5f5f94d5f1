"""The event id a REST read corresponds to (the `Link` hand-off's last-event-id)."""

from __future__ import annotations

from fastapi import FastAPI

from app.realtime.resume import one_snapshot, resume_point
from tests.factories.realtime import publish_event


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
        await one_snapshot(session)
        assert await resume_point(session) == str(before)
        # Committed while the read is under way: after its snapshot, so the stream's news, not the read's.
        await publish_event(app, "claims/1/messages", {"type": "b"})
        assert await resume_point(session) == str(before)
        await session.commit()
