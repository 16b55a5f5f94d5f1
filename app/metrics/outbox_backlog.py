"""The outbox's gauges, read at scrape time in one statement: pending and failed rows, and how long the
oldest pending one has waited. (The statement walks the status index over pending and failed rows only,
never the done ones that pile up.)"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass

from prometheus_client.core import GaugeMetricFamily
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.clock import utc_now
from app.models import OutboxItem
from app.models.enums import OutboxState

log = logging.getLogger("warranty.metrics")

_BACKLOG = (
    select(OutboxItem.status, func.count(), func.min(OutboxItem.created_at))
    .where(OutboxItem.status.in_((OutboxState.PENDING, OutboxState.FAILED)))
    .group_by(OutboxItem.status)
)


@dataclass(frozen=True)
class Backlog:
    pending: int
    failed: int
    oldest_pending_age: float  # seconds; 0 when nothing is pending

    def collect(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily("warranty_outbox_pending", "Notifications not delivered yet.", self.pending)
        yield GaugeMetricFamily("warranty_outbox_failed", "Notifications that failed for good.", self.failed)
        yield GaugeMetricFamily(
            "warranty_outbox_oldest_pending_age_seconds",
            "How long the oldest pending notification has waited (0 when none is pending).",
            self.oldest_pending_age,
        )


async def read_backlog(sessions: async_sessionmaker[AsyncSession]) -> Backlog | None:
    """None when the database cannot say (the scrape then shows everything else)."""
    try:
        async with sessions() as session:
            rows = (await session.execute(_BACKLOG)).all()
    except Exception:
        log.warning("metrics: reading the outbox backlog failed", exc_info=True)
        return None
    by_status = {status: (count, oldest) for status, count, oldest in rows}
    pending, oldest = by_status.get(OutboxState.PENDING, (0, None))
    age = max(0.0, (utc_now() - oldest).total_seconds()) if oldest is not None else 0.0
    return Backlog(
        pending=pending, failed=by_status.get(OutboxState.FAILED, (0, None))[0], oldest_pending_age=age
    )
