"""What a change in a claim notifies, and to whom. Called by the claims and messages services (and the
inbound email service) in the change's transaction; the worker composes and sends after commit.

Outbox kinds recorded here (each handled by app.notifications.worker):
- `email.claim_message` / `push.claim_message`: {"messageId", "recipientId"}
- `email.claim_status` / `push.claim_status`: {"claimId", "status", "recipientId"}
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Claim, Message, User
from app.notifications.outbox import enqueue


def recipients(participants: Iterable[User | None], actor: User | None) -> list[User]:
    """Every participant (customer, assigned supplier) except the one who acted."""
    seen: dict[int, User] = {}
    for user in participants:
        if user is not None and (actor is None or user.id != actor.id):
            seen.setdefault(user.id, user)
    return list(seen.values())


def _fan_out(session: AsyncSession, event: str, payload: dict[str, object], to: Iterable[User]) -> None:
    for user in to:
        if user.email_notifications_enabled:
            enqueue(session, f"email.{event}", {**payload, "recipientId": user.id})
        if user.notifications_enabled:
            enqueue(session, f"push.{event}", {**payload, "recipientId": user.id})


def message_posted(session: AsyncSession, message: Message, to: Iterable[User]) -> None:
    _fan_out(session, "claim_message", {"messageId": message.id}, to)


def status_changed(session: AsyncSession, claim: Claim, to: Iterable[User]) -> None:
    _fan_out(session, "claim_status", {"claimId": claim.id, "status": claim.status}, to)
