from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fastapi import FastAPI
from sqlalchemy import select

from app.core.clock import frozen_time
from app.models import Event
from app.realtime.history import prune
from tests.factories.realtime import publish_event

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


async def _ids(app: FastAPI) -> list[int]:
    async with app.state.sessionmaker() as session:
        return list(await session.scalars(select(Event.id).order_by(Event.id)))


async def test_prune_keeps_the_retention_window(app: FastAPI) -> None:
    with frozen_time(NOW - timedelta(hours=49)):
        old, _ = await publish_event(app, "claims/1/messages", {"type": "old"})
    with frozen_time(NOW - timedelta(hours=47)):
        recent, _ = await publish_event(app, "claims/1/messages", {"type": "recent"})

    with frozen_time(NOW):
        async with app.state.sessionmaker() as session, session.begin():
            assert await prune(session, 48) == 1

    assert await _ids(app) == [recent]
    assert old < recent


async def test_prune_keeps_the_newest_event_so_ids_never_restart(app: FastAPI) -> None:
    with frozen_time(NOW - timedelta(days=10)):
        first, _ = await publish_event(app, "claims/1/messages", {"type": "a"})
        newest, _ = await publish_event(app, "claims/1/status", {"type": "b"})

    with frozen_time(NOW):
        async with app.state.sessionmaker() as session, session.begin():
            await prune(session, 48)
        later, _ = await publish_event(app, "claims/1/messages", {"type": "c"})

    assert await _ids(app) == [newest, later]
    assert first < newest < later
