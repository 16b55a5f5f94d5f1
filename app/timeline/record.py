"""The one way a claim's timeline grows: `add_to_timeline`, called where each change happens (the claims and
messages services, the inbound email service, the outbox worker), in that change's transaction."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Claim, ClaimEvent, User
from app.models.enums import OutboxState, Role


class TimelineKind(StrEnum):
    CLAIM_CREATED = "claim.created"
    SUPPLIER_ASSIGNED = "supplier.assigned"
    SUPPLIER_UNASSIGNED = "supplier.unassigned"
    ORGANIZATION_CHANGED = "organization.changed"
    STATUS_CHANGED = "status.changed"
    MESSAGE_POSTED = "message.posted"
    RMA_ISSUED = "rma.issued"
    NOTIFICATION_SENT = "notification.sent"
    NOTIFICATION_FAILED = "notification.failed"
    NOTIFICATION_SKIPPED = "notification.skipped"
    INBOUND_ACCEPTED = "inbound.accepted"
    INBOUND_IGNORED = "inbound.ignored"
    CLAIM_RATED = "claim.rated"
    SLA_BREACHED = "sla.breached"  # {"which", "dueAt", "organizationId"}, by the service itself


class ActorRole(StrEnum):
    CUSTOMER = "customer"
    SUPPLIER = "supplier"
    ADMIN = "admin"
    SYSTEM = "system"  # the service itself (the outbox worker)


def role_of(claim: Claim, user: User) -> ActorRole:
    """What `user` was to the claim when they acted: its customer or supplier, else an admin, else by their
    account (a household member of the product is on the customer's side)."""
    if user.id == claim.customer_id:
        return ActorRole.CUSTOMER
    if user.id == claim.supplier_id:
        return ActorRole.SUPPLIER
    if Role.ADMIN in user.effective_roles:
        return ActorRole.ADMIN
    return ActorRole.SUPPLIER if Role.SUPPLIER in user.effective_roles else ActorRole.CUSTOMER


def add_to_timeline(
    session: AsyncSession, claim: Claim | int, kind: TimelineKind, actor: User | None = None, **data: Any
) -> None:
    """Add an entry to the claim's timeline (flushed with the change). `claim` may be a bare id for the
    service's own doings, which have no actor."""
    claim_id = claim if isinstance(claim, int) else claim.id
    role = ActorRole.SYSTEM if actor is None or isinstance(claim, int) else role_of(claim, actor)
    session.add(
        ClaimEvent(
            claim_id=claim_id, kind=kind, actor_id=actor.id if actor else None, actor_role=role, data=data
        )
    )


_FINISHED = {
    OutboxState.DONE: TimelineKind.NOTIFICATION_SENT,
    OutboxState.FAILED: TimelineKind.NOTIFICATION_FAILED,
    OutboxState.SKIPPED: TimelineKind.NOTIFICATION_SKIPPED,
}
NOTIFIED_CHANNELS = ("email", "push")


async def notification_finished(
    session: AsyncSession,
    outbox_id: int,
    kind: str,
    payload: dict[str, Any],
    status: OutboxState,
    error: str | None,
) -> None:
    """The outbox worker finished a row: a claim's email or push goes on the claim's timeline, in the
    transaction that records the outcome. The error is only named (its class): the text may hold another
    participant's address, and admins read it whole in /api/admin/notifications."""
    channel, _, notification = kind.partition(".")
    claim_id = payload.get("claimId")
    if channel not in NOTIFIED_CHANNELS or status not in _FINISHED or not isinstance(claim_id, int):
        return
    data: dict[str, Any] = {
        "channel": channel,
        "notification": notification,
        "recipientId": payload.get("recipientId"),
        "outboxId": outbox_id,
    }
    if status != OutboxState.DONE and error:
        data["error"] = error.split(":", 1)[0]
    try:
        async with session.begin_nested():  # the claim may have been deleted since: then nothing to add to
            add_to_timeline(session, claim_id, _FINISHED[status], **data)
    except IntegrityError:
        pass
