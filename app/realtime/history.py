"""The events table as the hub's history: replay after an id, the newest id, pruning."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.clock import utc_now
from app.core.driver_reads import DriverRead
from app.core.ids import MAX_BIGINT_ID
from app.errors import ValidationFailed
from app.models import Event
from app.realtime.publishing import StoredEvent

EARLIEST = "earliest"
_BOUNDS = select(func.min(Event.id), func.max(Event.id))
# Read by every claim detail and message page (the hand-off): on the driver's connection.
_NEWEST: DriverRead[Any] = DriverRead(select(func.max(Event.id)))


async def newest_id(session: AsyncSession) -> int | None:
    found: int | None = await _NEWEST.scalar(session)
    return found


def parse_last_event_id(raw: str | None, field: str) -> int | None:
    """A client's Last-Event-ID: None when absent or empty (no replay), 0 for `earliest` (all history),
    else the id. Anything but `earliest` or ASCII digits in 0..MAX_BIGINT_ID is a 400 naming `field`
    (str.isdigit would take `²`, which int() then refuses)."""
    if raw is None or raw == "":
        return None
    if raw == EARLIEST:
        return 0
    if (
        not (raw.isascii() and raw.isdigit())
        or len(raw.lstrip("0")) > len(str(MAX_BIGINT_ID))
        or int(raw) > MAX_BIGINT_ID
    ):
        raise ValidationFailed.field(
            field, f"must be `{EARLIEST}` or an event id (digits, at most {MAX_BIGINT_ID})"
        )
    return int(raw)


async def replay_start(session: AsyncSession, wanted: int | None) -> int | None:
    """The id to replay after: None for no replay; 0 for all history (`earliest`, or an id outside the
    history: pruned, or above the newest). Ids are not consecutive and events may be deleted (a deleted
    claim's go), so an id within the history is a point in it whether or not its row is still there: the
    id a REST read handed out may be a deleted event's."""
    if wanted is None or wanted == 0:
        return wanted
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


async def updates_after(session: AsyncSession, after: int, limit: int) -> list[StoredEvent]:
    """Published updates of any topic above `after`, oldest first, at most `limit` (the replay of a
    subscription that selects by template, URL pattern or `*`)."""
    rows = await session.execute(
        select(Event.id, Event.topic, Event.payload)
        .where(Event.update_id.is_not(None), Event.id > after)
        .order_by(Event.id)
        .limit(limit)
    )
    return [StoredEvent(*row) for row in rows]


async def update_ids_after(session: AsyncSession, after: int) -> set[int]:
    """The ids of the published updates above `after`."""
    rows = await session.scalars(select(Event.id).where(Event.update_id.is_not(None), Event.id > after))
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
