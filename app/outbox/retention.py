"""Outbox retention: delivered rows go after WARRANTY_OUTBOX_RETENTION_DAYS, failed ones after
WARRANTY_OUTBOX_FAILED_RETENTION_DAYS since their last attempt (a retry starts the count again); pending
rows always stay. Deleted in bounded batches, each its own short transaction, so pruning a large backlog
never holds a long lock (on SQLite: the write lock) or one huge transaction."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import ColumnElement, and_, delete, or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.core.clock import utc_now
from app.models import OutboxItem
from app.models.enums import OutboxState

BATCH = 500  # rows per delete


def expired(settings: Settings) -> ColumnElement[bool]:
    """Rows past their retention: done or skipped (nothing more to send) since `outbox_retention_days`,
    failed with no attempt since `outbox_failed_retention_days`."""
    now = utc_now()
    return or_(
        and_(
            OutboxItem.status.in_((OutboxState.DONE, OutboxState.SKIPPED)),
            OutboxItem.done_at < now - timedelta(days=settings.outbox_retention_days),
        ),
        and_(
            OutboxItem.status == OutboxState.FAILED,
            OutboxItem.next_attempt_at < now - timedelta(days=settings.outbox_failed_retention_days),
        ),
    )


async def prune_outbox(
    sessionmaker: async_sessionmaker[AsyncSession], settings: Settings, batch: int = BATCH
) -> int:
    """Deletes every row past its retention, `batch` rows per transaction; answers how many."""
    removed = 0
    while True:
        async with sessionmaker() as session, session.begin():
            ids = select(OutboxItem.id).where(expired(settings)).limit(batch).scalar_subquery()
            result = await session.execute(delete(OutboxItem).where(OutboxItem.id.in_(ids)))
        count = int(getattr(result, "rowcount", 0) or 0)
        removed += count
        if count < batch:
            return removed
