"""The events table as the hub's history: replay after an id, the newest id, pruning."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.clock import utc_now
from app.models import Event
from app.realtime.events import StoredEvent

EARLIEST = "earliest"
_BOUNDS = select(func.min(Event.id), func.max(Event.id))


async def newest_id(session: AsyncSession) -> int | None:
    found: int | None = await session.scalar(select(func.max(Event.id)))
    return found


async def replay_start(session: AsyncSession, last_event_id: str | None) -> int | None:
    """The id to replay after: None for no replay; 0 for all history (`earliest`, or an id outside the
    history: pruned, or above the newest). Ids are not consecutive and events may be deleted (a deleted
    claim's go), so an id within the history is a point in it whether or not its row is still there: the
    id a REST read handed out may be a deleted event's."""
    if last_event_id is None or last_event_id == "":
        return None
    if last_event_id == EARLIEST or not last_event_id.isdigit():
        return 0
    wanted = int(last_event_id)
    oldest, newest = (await session.execute(_BOUNDS)).one()
    return wanted if oldest is not None and oldest <= wanted <= newest else 0


async def events_after(session: AsyncSession, topics: list[str], after: int) -> list[StoredEvent]:
    """The events of `topics` with an id above `after`, oldest first."""
    rows = await session.execute(
        select(Event.id, Event.topic, Event.payload)
        .where(Event.topic.in_(topics), Event.id > after)
        .order_by(Event.id)
    )
    return [StoredEvent(*row) for row in rows]


async def ids_after(session: AsyncSession, topics: list[str], after: int) -> set[int]:
    """The ids of the events of `topics` above `after` (already committed: not news for a new subscriber)."""
    rows = await session.scalars(select(Event.id).where(Event.topic.in_(topics), Event.id > after))
    return set(rows)


async def all_after(session: AsyncSession, after: int, limit: int) -> list[StoredEvent]:
    """Every topic's events above `after`, oldest first (the tail reader's query)."""
    rows = await session.execute(
        select(Event.id, Event.topic, Event.payload).where(Event.id > after).order_by(Event.id).limit(limit)
    )
    return [StoredEvent(*row) for row in rows]


async def prune(session: AsyncSession, retention_hours: int) -> int:
    """Deletes events older than the retention. The newest event always stays, so ids never restart
    (SQLite would reuse them on an empty table) and a client's Last-Event-ID keeps its meaning."""
    cutoff = utc_now() - timedelta(hours=retention_hours)
    newest = select(func.max(Event.id)).scalar_subquery()
    result = await session.execute(delete(Event).where(Event.created_at < cutoff, Event.id < newest))
    return int(getattr(result, "rowcount", 0) or 0)
