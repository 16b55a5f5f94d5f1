"""The breach job (contract 17.8; docs/api.md, "Deadlines"): every `sla_check_interval` seconds the outbox
worker (in the app, or `warranty worker`) records the deadlines that passed unmet.

Exactly once whatever the number of processes, and across restarts, because the state is the database's:
one UPDATE sets `*_breached_at` where it is still null and answers the rows it set (RETURNING). On
PostgreSQL the rows are picked `FOR UPDATE SKIP LOCKED`, so two workers take different rows, and the
UPDATE's own condition is evaluated again on a row another transaction changed meanwhile, so a row is never
set twice; SQLite serialises writers. The consequences (a timeline entry, the `claim.sla_breached` webhook,
an email to each manager: `SlaBreached` in app.changes) are recorded in that same transaction, so a
crash records either all of it or nothing (and the next round records it). The counter
`warranty_sla_breaches_total{which}` counts after commit."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.changes.dispatch import record
from app.changes.events import SlaBreached, SlaManager
from app.core.clock import utc_now
from app.models import Claim, ClaimDeadline, OrganizationMember, User
from app.models.enums import OrganizationRole
from app.observability.metrics import series

BATCH = 200  # deadlines recorded per transaction
_TABLE = cast(Table, ClaimDeadline.__table__)
_t = _TABLE.c
# which -> (due, met, breached)
DEADLINES = {
    "first_response": (_t.first_response_due_at, _t.first_responded_at, _t.first_response_breached_at),
    "resolution": (_t.resolution_due_at, _t.resolved_at, _t.resolution_breached_at),
}


async def record_breaches(
    sessionmaker: async_sessionmaker[AsyncSession], *, postgresql: bool, now: datetime | None = None
) -> int:
    """Records every deadline due by `now` (default: the clock) and still unmet and unrecorded; answers how
    many this process recorded."""
    moment = now or utc_now()
    recorded = 0
    for which in DEADLINES:
        while True:
            async with sessionmaker() as session, session.begin():
                count = await _record_batch(session, which, moment, postgresql)
            if count:
                series().sla_breaches.labels(which).inc(count)
            recorded += count
            if count < BATCH:
                break
    return recorded


async def _record_batch(session: AsyncSession, which: str, now: datetime, postgresql: bool) -> int:
    due, met, breached = DEADLINES[which]
    unmet = (met.is_(None), breached.is_(None), due.is_not(None), due <= now)
    picked = select(_t.claim_id).where(*unmet).order_by(due).limit(BATCH)
    if postgresql:
        picked = picked.with_for_update(skip_locked=True)
    statement = (
        update(_TABLE)
        .where(_t.claim_id.in_(picked), *unmet)
        .values({breached: now})
        .returning(_t.claim_id, due)
    )
    rows = (await session.execute(statement)).all()
    if not rows:
        return 0
    for change in await _changes(session, which, rows):
        await record(session, change)
    return len(rows)


async def _changes(session: AsyncSession, which: str, rows: Sequence[Any]) -> list[SlaBreached]:
    """One change per row, with the claim's organisation and its managers (two reads per batch)."""
    claim_ids = [row[0] for row in rows]
    organizations = dict(
        (await session.execute(select(Claim.id, Claim.organization_id).where(Claim.id.in_(claim_ids)))).all()
    )
    managers: dict[int, list[SlaManager]] = {}
    statement = (
        select(OrganizationMember.organization_id, User.id, User.email_notifications_enabled)
        .join(User, User.id == OrganizationMember.user_id)
        .where(
            OrganizationMember.organization_id.in_({value for value in organizations.values() if value}),
            OrganizationMember.role == OrganizationRole.MANAGER,
        )
        .order_by(User.id)
    )
    for organization_id, user_id, email_enabled in await session.execute(statement):
        managers.setdefault(organization_id, []).append(SlaManager(user_id, email_enabled))
    changes = []
    for claim_id, due_at in rows:
        routed_to = organizations.get(claim_id)
        if routed_to is not None:
            found = tuple(managers.get(routed_to, ()))
            changes.append(SlaBreached(claim_id, routed_to, which, due_at, found))
    return changes
