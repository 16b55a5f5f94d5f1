"""What a change in a claim causes beyond the hub, and for whom: the other participants' notifications
and the outbound webhooks. Called by the claims and messages services (and, through them, the inbound
email service) in the change's transaction; the worker sends after commit.

Outbox kinds recorded here (each handled by app.notifications.worker):
- `email.claim_message` / `push.claim_message`: {"messageId", "claimId", "recipientId"}
- `email.claim_status` / `push.claim_status`: {"claimId", "status", "recipientId"}, and for a resolution
  with an outcome {"outcome", "outcomeNote", "warrantyExtension"}
- `webhook.deliver` (app.webhooks.events): `claim.created`, `claim.status_changed`,
  `claim.supplier_assigned`, `message.created`
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy.ext.asyncio import AsyncSession

from app.claims.status import ClaimStatus
from app.models import Claim, Message, User
from app.notifications.kinds import OutboxKind
from app.notifications.outbox import enqueue
from app.products import extensions
from app.webhooks import events as webhooks
from app.webhooks import payloads


def recipients(participants: Iterable[User | None], actor: User | None) -> list[User]:
    """Every participant (customer, assigned supplier) except the one who acted."""
    seen: dict[int, User] = {}
    for user in participants:
        if user is not None and (actor is None or user.id != actor.id):
            seen.setdefault(user.id, user)
    return list(seen.values())


def _fan_out(
    session: AsyncSession,
    kinds: tuple[OutboxKind, OutboxKind],
    payload: dict[str, object],
    to: Iterable[User],
) -> None:
    email, push = kinds
    for user in to:
        if user.email_notifications_enabled:
            enqueue(session, email, {**payload, "recipientId": user.id})
        if user.notifications_enabled:
            enqueue(session, push, {**payload, "recipientId": user.id})


async def claim_opened(session: AsyncSession, claim: Claim) -> None:
    await webhooks.record(session, "claim.created", {"claim": payloads.claim(claim)})


async def message_posted(
    session: AsyncSession, message: Message, sender: User | None, to: Iterable[User]
) -> None:
    _fan_out(
        session,
        (OutboxKind.EMAIL_CLAIM_MESSAGE, OutboxKind.PUSH_CLAIM_MESSAGE),
        {"messageId": message.id, "claimId": message.claim_id},
        to,
    )
    data = {"message": payloads.message(message, sender), "claimId": message.claim_id}
    await webhooks.record(session, "message.created", data)


async def status_changed(
    session: AsyncSession, claim: Claim, previous: str, actor: User | None, to: Iterable[User]
) -> None:
    resolution = payloads.outcome(claim, await extensions.of_claim(session, claim.id))
    news: dict[str, object] = {"claimId": claim.id, "status": claim.status}
    if claim.status == ClaimStatus.RESOLVED and claim.outcome is not None:
        news |= resolution  # the resolution's email tells the outcome
    _fan_out(session, (OutboxKind.EMAIL_CLAIM_STATUS, OutboxKind.PUSH_CLAIM_STATUS), news, to)
    data = {
        "claim": payloads.claim(claim) | resolution,
        "previousStatus": previous,
        "actorId": actor.id if actor else None,
    }
    await webhooks.record(session, "claim.status_changed", data)


async def supplier_assigned(session: AsyncSession, claim: Claim, former: int | None, actor: User) -> None:
    data = {"claim": payloads.claim(claim), "previousSupplierId": former, "actorId": actor.id}
    await webhooks.record(session, "claim.supplier_assigned", data)
