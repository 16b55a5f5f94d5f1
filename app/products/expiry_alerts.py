"""Warranty expiry alerts: `warranty send-expiry-alerts`, and once a day inside the worker. The job records
a `WarrantiesExpiring` change; its consequences enqueue the email and push (composed by
app.notifications.expiry_notices) and the webhooks.

Each (product, threshold, expiry date) is alerted exactly once however often the job runs, restarts or
overlaps: the alert row's composite primary key decides, inserted with ON CONFLICT DO NOTHING in the same
transaction that enqueues the email and push. Editing a product's dates, or a claim's warranty extension,
changes its (effective) expiry date, so the key is new and the alerts are re-armed. A voided warranty is
not alerted; unvoided, it is alerted for the thresholds its date has not been alerted for yet.

A product already inside several thresholds when first seen (say 5 days left with thresholds 30 and 7) is
alerted once, for the smallest threshold; the larger ones are recorded as covered, never sent late.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.changes.dispatch import record
from app.changes.events import WarrantiesExpiring, WarrantyAlert
from app.config import Settings
from app.core.clock import utc_now, utc_today
from app.models import ExpiryAlert, Product, User

CHUNK = 500


async def send_expiry_alerts(sessionmaker: async_sessionmaker[AsyncSession], settings: Settings) -> int:
    """Record and enqueue every alert due today; answers how many products were alerted."""
    thresholds = settings.expiry_thresholds
    if not thresholds:
        return 0
    today = utc_today()
    alerted, after_id = 0, 0
    while True:
        async with sessionmaker() as session, session.begin():
            rows = await _expiring(session, today, max(thresholds), after_id)
            if not rows:
                return alerted
            alerted += await _alert(session, rows, thresholds, today)
        after_id = rows[-1].id


async def _expiring(session: AsyncSession, today: date, horizon: int, after_id: int) -> list[Any]:
    statement = (
        select(
            Product.id,
            Product.name,
            Product.brand,
            Product.category,
            Product.warranty_expires_on,
            User.id.label("owner_id"),
            User.notifications_enabled,
            User.email_notifications_enabled,
        )
        .join(User, User.id == Product.owner_id)
        .where(
            Product.id > after_id,
            Product.warranty_voided_at.is_(None),  # a voided warranty is not alerted
            Product.warranty_expires_on >= today,
            Product.warranty_expires_on <= today + timedelta(days=horizon),
        )
        .order_by(Product.id)
        .limit(CHUNK)
    )
    return list((await session.execute(statement)).all())


async def _alert(session: AsyncSession, rows: list[Any], thresholds: list[int], today: date) -> int:
    wanted: list[dict[str, Any]] = []
    smallest: dict[int, int] = {}
    for row in rows:
        days_left = (row.warranty_expires_on - today).days
        applicable = [threshold for threshold in thresholds if days_left <= threshold]
        smallest[row.id] = min(applicable)
        wanted += [
            {
                "product_id": row.id,
                "threshold_days": t,
                "expires_on": row.warranty_expires_on,
                "created_at": utc_now(),
            }
            for t in applicable
        ]
    inserted = await _insert_new(session, wanted)
    # Only the alerts this run inserted: the others were sent by an earlier or concurrent run.
    alerts = tuple(
        WarrantyAlert(row, smallest[row.id], (row.warranty_expires_on - today).days)
        for row in rows
        if (row.id, smallest[row.id]) in inserted
    )
    await record(session, WarrantiesExpiring(alerts))
    return len(alerts)


async def _insert_new(session: AsyncSession, values: list[dict[str, Any]]) -> set[tuple[int, int]]:
    """Insert the alert rows that do not exist yet; answers (product, threshold) of those inserted."""
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    statement = (
        dialect.insert(ExpiryAlert)
        .values(values)
        .on_conflict_do_nothing()
        .returning(ExpiryAlert.product_id, ExpiryAlert.threshold_days)
    )
    return {(row.product_id, row.threshold_days) for row in await session.execute(statement)}
