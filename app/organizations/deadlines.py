"""A routed claim's two deadlines (contract 17.8; docs/api.md, "Deadlines"): the first response and the
resolution, counted in its organisation's business minutes (app.core.business_time), one `claim_deadlines`
row per routed claim, written in the transaction of the change that moves a clock.

- Routing a claim (at creation, or handing it on) starts both clocks afresh for the organisation it goes
  to; handing it on to none removes them.
- The first supplier-side message or status change (its agents and managers, an admin) meets the first
  response; `first_response_minutes` keeps the business minutes it took.
- Resolving or closing meets the resolution; `resolution_minutes` keeps the business minutes the clock ran,
  pauses excluded. A reopen resumes the clock from there (its deadline is what was left of it).
- The clock pauses while the claim waits for its customer (the last message is from the supplier side and
  the claim is `in_progress`): `resolution_due_at` is null, the minutes run so far are kept, and the
  customer's next message (or the claim leaving `in_progress`) resumes it with a new due time.

Recording a breach is app.organizations.breaches; nothing here causes anything."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.claims import ADMIN, CUSTOMER, SUPPLIER, claim_roles
from app.core.business_time import BusinessHours, add_business_minutes, business_minutes_between
from app.models import Claim, ClaimDeadline, Message, Organization, User
from app.models.enums import ClaimStatus

STOPPED = (ClaimStatus.RESOLVED, ClaimStatus.CLOSED)
NO_DEADLINE = datetime(9999, 12, 31, tzinfo=UTC)  # `next_due_at` of a row without an open deadline
RECOMPUTE_BATCH = 500  # open deadlines re-computed per round trip after a change of settings


@dataclass(frozen=True)
class Terms:
    """An organisation's deadlines: minutes, and the hours they count in (None: around the clock)."""

    first_response: int
    resolution: int
    hours: BusinessHours | None

    @classmethod
    def of(cls, organization: Organization) -> Terms:
        return cls(
            organization.first_response_minutes,
            organization.resolution_minutes,
            BusinessHours.from_json(organization.business_hours),
        )


async def _terms(session: AsyncSession, organization_id: int) -> Terms | None:
    organization = await session.get(Organization, organization_id)
    return None if organization is None else Terms.of(organization)


async def _row(session: AsyncSession, claim: Claim) -> ClaimDeadline | None:
    return await session.get(ClaimDeadline, claim.id)


def next_due(
    first_response_due_at: datetime | None,
    first_responded_at: datetime | None,
    resolution_due_at: datetime | None,
    resolved_at: datetime | None,
) -> datetime:
    """The soonest open deadline: the unmet first response's, the running resolution's (null while
    paused), or NO_DEADLINE."""
    open_ones = [
        due
        for due, met in ((first_response_due_at, first_responded_at), (resolution_due_at, resolved_at))
        if due is not None and met is None
    ]
    return min(open_ones, default=NO_DEADLINE)


def _keep_next_due(row: ClaimDeadline) -> None:
    row.next_due_at = next_due(
        row.first_response_due_at, row.first_responded_at, row.resolution_due_at, row.resolved_at
    )


async def supplier_side(session: AsyncSession, user: User, claim: Claim) -> bool:
    """Whether the user acts on the claim as its supplier side: its agent, a member of its organisation or
    an admin, and not its customer side (which wins for someone on both, as everywhere)."""
    roles = await claim_roles(session, user, claim)
    return CUSTOMER not in roles and bool(roles & {SUPPLIER, ADMIN})


async def waits_for_customer(session: AsyncSession, claim: Claim) -> bool:
    """Whether the claim's last message is from its supplier side (two short reads)."""
    statement = (
        select(Message.sender_id)
        .where(Message.claim_id == claim.id)
        .order_by(Message.created_at.desc(), Message.id.desc())
        .limit(1)
    )
    sender_id = await session.scalar(statement)
    sender = None if sender_id is None else await session.get(User, sender_id)
    return sender is not None and await supplier_side(session, sender, claim)


async def start_new(session: AsyncSession, claim: Claim, terms: Terms, now: datetime) -> None:
    """A new claim routed under `terms`: its clocks start (one insert)."""
    assert claim.organization_id is not None
    session.add(_started(ClaimDeadline(claim_id=claim.id), claim, terms, now))
    await session.flush()


def _started(row: ClaimDeadline, claim: Claim, terms: Terms, now: datetime) -> ClaimDeadline:
    row.organization_id = claim.organization_id  # type: ignore[assignment]  # a routed claim's
    row.started_at, row.resolution_minutes_run, row.paused_since = now, 0, None
    row.first_response_due_at = add_business_minutes(now, terms.first_response, terms.hours)
    row.resolution_due_at = add_business_minutes(now, terms.resolution, terms.hours)
    row.first_responded_at = row.first_response_minutes = row.first_response_breached_at = None
    row.resolved_at = row.resolution_minutes = row.resolution_breached_at = None
    row.resolution_running_since = now
    if claim.status in STOPPED:
        row.first_responded_at, row.first_response_minutes = now, 0
        row.resolved_at, row.resolution_minutes, row.resolution_running_since = now, 0, None
    _keep_next_due(row)
    return row


async def start(session: AsyncSession, claim: Claim, now: datetime) -> None:
    """The claim was routed (or handed on, or away: `claim.organization_id` None): its clocks start
    afresh for its organisation. A claim handed on once resolved or closed has both deadlines met at
    once, in no time."""
    row = await _row(session, claim)
    terms = None if claim.organization_id is None else await _terms(session, claim.organization_id)
    if terms is None:
        if row is not None:
            await session.delete(row)
            await session.flush()
        return
    if row is None:
        row = ClaimDeadline(claim_id=claim.id)
        session.add(row)
    _started(row, claim, terms, now)
    await session.flush()


async def responded(session: AsyncSession, claim: Claim, now: datetime) -> None:
    """A supplier-side message or status change: the first one meets the first response."""
    row = await _row(session, claim)
    if row is None or row.first_responded_at is not None:
        return
    terms = await _terms(session, claim.organization_id) if claim.organization_id else None
    row.first_responded_at = now
    row.first_response_minutes = business_minutes_between(row.started_at, now, terms.hours if terms else None)
    _keep_next_due(row)
    await session.flush()


async def message_posted(session: AsyncSession, claim: Claim, supplier_side: bool, now: datetime) -> None:
    """A message: the supplier side's meets the first response and, on an `in_progress` claim, pauses the
    resolution clock (the claim waits for its customer); the customer side's resumes it."""
    if supplier_side:
        await responded(session, claim, now)
        if claim.status == ClaimStatus.IN_PROGRESS:
            await _pause(session, claim, now)
    else:
        await _resume(session, claim, now)


async def status_changed(
    session: AsyncSession,
    claim: Claim,
    former: ClaimStatus,
    supplier_side: bool,
    waits_for_customer: bool,
    now: datetime,
) -> None:
    """`claim.status` is new. Resolved or closed meets the resolution; a reopen resumes it; a claim that
    becomes `in_progress` while the last message is the supplier side's (`waits_for_customer`) pauses."""
    if supplier_side:
        await responded(session, claim, now)
    if claim.status in STOPPED:
        await _stop(session, claim, now)
    elif former in STOPPED:
        await _reopen(session, claim, now)
    if claim.status == ClaimStatus.IN_PROGRESS and waits_for_customer:
        await _pause(session, claim, now)
    elif claim.status != ClaimStatus.IN_PROGRESS:
        await _resume(session, claim, now)


async def _running(session: AsyncSession, claim: Claim) -> tuple[ClaimDeadline, Terms] | None:
    """The claim's deadlines and terms while its resolution clock is not stopped."""
    row = await _row(session, claim)
    if row is None or row.resolved_at is not None or claim.organization_id is None:
        return None
    terms = await _terms(session, claim.organization_id)
    return None if terms is None else (row, terms)


def _run_until(row: ClaimDeadline, terms: Terms, now: datetime) -> int:
    """Business minutes the resolution clock has run by `now`, pauses excluded."""
    since = row.resolution_running_since
    ran = 0 if since is None else business_minutes_between(since, now, terms.hours)
    return row.resolution_minutes_run + ran


def _run_from(row: ClaimDeadline, terms: Terms, now: datetime) -> None:
    """The resolution clock runs again from `now`, due when the minutes it has left are spent."""
    row.resolution_running_since = now
    left = max(0, terms.resolution - row.resolution_minutes_run)
    row.resolution_due_at = add_business_minutes(now, left, terms.hours)
    _keep_next_due(row)


async def _pause(session: AsyncSession, claim: Claim, now: datetime) -> None:
    found = await _running(session, claim)
    if found is None or found[0].paused_since is not None:
        return
    row, terms = found
    row.resolution_minutes_run = _run_until(row, terms, now)
    row.paused_since, row.resolution_running_since, row.resolution_due_at = now, None, None
    _keep_next_due(row)
    await session.flush()


async def _resume(session: AsyncSession, claim: Claim, now: datetime) -> None:
    found = await _running(session, claim)
    if found is None or found[0].paused_since is None:
        return
    row, terms = found
    row.paused_since = None
    _run_from(row, terms, now)
    await session.flush()


async def _stop(session: AsyncSession, claim: Claim, now: datetime) -> None:
    found = await _running(session, claim)
    if found is None:
        return
    row, terms = found
    row.resolution_minutes = _run_until(row, terms, now)
    row.resolved_at, row.paused_since, row.resolution_running_since = now, None, None
    _keep_next_due(row)
    await session.flush()


async def _reopen(session: AsyncSession, claim: Claim, now: datetime) -> None:
    """The clock resumes from the minutes it had run when the claim was resolved."""
    row = await _row(session, claim)
    terms = await _terms(session, claim.organization_id) if claim.organization_id else None
    if row is None or row.resolved_at is None or terms is None:
        return
    row.resolution_minutes_run = row.resolution_minutes or 0
    row.resolved_at, row.resolution_minutes = None, None
    _run_from(row, terms, now)
    await session.flush()


# --- The organisation's settings changed: its open deadlines are re-computed


def _recomputed(row: Any, terms: Terms) -> dict[str, Any]:
    """New due times of one open row (`claim_id`, `started_at`, `first_responded_at`, `resolved_at`,
    `paused_since`, `resolution_running_since`, `resolution_minutes_run`)."""
    values: dict[str, Any] = {"claim_id": row.claim_id}
    first, resolution = row.first_response_due_at, row.resolution_due_at
    if row.first_responded_at is None and row.first_response_due_at is not None:
        first = values["first_response_due_at"] = add_business_minutes(
            row.started_at, terms.first_response, terms.hours
        )
    if row.resolved_at is None and row.paused_since is None and row.resolution_running_since:
        left = max(0, terms.resolution - row.resolution_minutes_run)
        resolution = values["resolution_due_at"] = add_business_minutes(
            row.resolution_running_since, left, terms.hours
        )
    values["next_due_at"] = next_due(first, row.first_responded_at, resolution, row.resolved_at)
    return values


async def recompute(session: AsyncSession, organization_id: int, terms: Terms) -> int:
    """Every open deadline of the organisation's claims counted again under `terms` (minutes run before a
    pause stay as they were counted): per batch of RECOMPUTE_BATCH rows, one read and one executemany
    update per set of columns. Answers how many rows were read. A breach recorded stays recorded; a
    deadline now past is recorded by the breach job within a minute."""
    changed, after = 0, 0
    while True:
        rows = await _open_rows(session, organization_id, after)
        if not rows:
            return changed
        await _write_due_times(session, [_recomputed(row, terms) for row in rows])
        changed, after = changed + len(rows), rows[-1].claim_id


async def _open_rows(session: AsyncSession, organization_id: int, after: int) -> Sequence[Any]:
    statement = (
        select(
            ClaimDeadline.claim_id,
            ClaimDeadline.started_at,
            ClaimDeadline.first_response_due_at,
            ClaimDeadline.first_responded_at,
            ClaimDeadline.resolution_due_at,
            ClaimDeadline.resolved_at,
            ClaimDeadline.paused_since,
            ClaimDeadline.resolution_running_since,
            ClaimDeadline.resolution_minutes_run,
        )
        .where(
            ClaimDeadline.organization_id == organization_id,
            ClaimDeadline.claim_id > after,
            or_(ClaimDeadline.first_responded_at.is_(None), ClaimDeadline.resolved_at.is_(None)),
        )
        .order_by(ClaimDeadline.claim_id)
        .limit(RECOMPUTE_BATCH)
    )
    return (await session.execute(statement)).all()


async def _write_due_times(session: AsyncSession, values: list[dict[str, Any]]) -> None:
    """One executemany per set of columns (a row may change one due time or both, and its next one)."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for item in values:
        groups.setdefault(tuple(sorted(item)), []).append(item)
    for items in groups.values():
        await session.execute(update(ClaimDeadline), items)
