"""What a claim notification says, loaded from the database by id at send time. Each function answers
None when there is nothing to send any more (the message, claim or recipient is gone, or the recipient
switched that channel off since)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.errors import NotFound
from app.models import Claim, Message, Product, User
from app.models.enums import ClaimStatus
from app.models.user import DELETED_USER
from app.notifications.email import Attachment, Email
from app.notifications.push import PushNotification
from app.notifications.render import render
from app.outbox.handlers import Skipped
from app.storage.storage import Storage

log = logging.getLogger(__name__)

STATUS_LABELS: dict[str, str] = {
    ClaimStatus.OPEN: "Open",
    ClaimStatus.IN_PROGRESS: "In progress",
    ClaimStatus.RESOLVED: "Resolved",
    ClaimStatus.CLOSED: "Closed",
}
OUTCOME_LABELS = {
    "repaired": "Repaired",
    "replaced": "Replaced",
    "refunded": "Refunded",
    "rejected": "Rejected",
}
DASH = "\u2013"  # an en dash between claim and product in subjects


def claim_thread(claim_id: int) -> str:
    """One thread per claim: its message and status pushes are grouped together on the phone."""
    return f"claim-{claim_id}"


@dataclass
class ClaimContext:
    claim: Claim
    product: Product
    recipient: User

    def link(self, settings: Settings) -> str:
        return f"{settings.frontend_url.rstrip('/')}/claims/{self.claim.id}"


async def claim_context(session: AsyncSession, claim_id: int, recipient_id: int) -> ClaimContext | None:
    claim = await session.get(Claim, claim_id)
    recipient = await session.get(User, recipient_id)
    if claim is None or recipient is None:
        return None
    if recipient_id not in (claim.customer_id, claim.supplier_id):
        # Sent later than it was decided (a retry): the recipient is no longer part of the claim.
        raise Skipped(f"user {recipient_id} is no longer a participant of claim {claim_id}")
    product = await session.get(Product, claim.product_id)
    return ClaimContext(claim, product, recipient) if product is not None else None


async def _message_context(
    session: AsyncSession, message_id: int, recipient_id: int
) -> tuple[Message, str, ClaimContext] | None:
    message = await session.get(Message, message_id)
    if message is None:
        return None
    context = await claim_context(session, message.claim_id, recipient_id)
    if context is None:
        return None
    sender = await session.get(User, message.sender_id) if message.sender_id is not None else None
    return message, sender.name if sender else DELETED_USER, context


async def _attachment(message: Message, storage: Storage) -> list[Attachment]:
    if not message.attachment_key:
        return []
    try:
        data = await storage.read(message.attachment_key)
    except NotFound:
        log.warning("attachment of message %s is gone; emailing without it", message.id)
        return []
    name = message.attachment_name or "attachment"
    return [Attachment(name, message.attachment_mime or "application/octet-stream", data)]


async def message_email(
    session: AsyncSession, payload: dict[str, int], settings: Settings, storage: Storage
) -> Email | None:
    loaded = await _message_context(session, payload["messageId"], payload["recipientId"])
    if loaded is None or not loaded[2].recipient.email_notifications_enabled:
        return None
    message, sender, context = loaded
    subject = f"New message on your claim #{context.claim.id} {DASH} {context.product.name}"
    attachments = await _attachment(message, storage)
    attachment_line = f"Attached: {attachments[0].filename}" if attachments else ""
    text, html = render(
        "claim_message",
        subject,
        sender=sender,
        claim_id=context.claim.id,
        product=context.product.name,
        body=message.body,
        attachment_line=attachment_line,
        link=context.link(settings),
    )
    return Email(context.recipient.email, subject, text, html, context.claim.id, attachments)


async def message_push(session: AsyncSession, payload: dict[str, int]) -> tuple[int, PushNotification] | None:
    loaded = await _message_context(session, payload["messageId"], payload["recipientId"])
    if loaded is None or not loaded[2].recipient.notifications_enabled:
        return None
    message, sender, context = loaded
    preview = message.body if len(message.body) <= 140 else message.body[:139] + "…"
    notification = PushNotification(
        title=f"{sender} {DASH} claim #{context.claim.id} ({context.product.name})",
        message=preview or "Sent an attachment",
        data={"type": "new_message", "claimId": str(context.claim.id), "messageId": str(message.id)},
        thread=claim_thread(context.claim.id),
    )
    return context.recipient.id, notification


async def status_email(session: AsyncSession, payload: dict[str, object], settings: Settings) -> Email | None:
    context = await claim_context(session, int(str(payload["claimId"])), int(str(payload["recipientId"])))
    if context is None or not context.recipient.email_notifications_enabled:
        return None
    status = STATUS_LABELS.get(str(payload["status"]), str(payload["status"]))
    subject = f"Your claim #{context.claim.id} {DASH} {context.product.name} is now {status}"
    outcome = "\n".join(_outcome_lines(payload))
    text, html = render(
        "claim_status",
        subject,
        claim_id=context.claim.id,
        product=context.product.name,
        status=status,
        outcome=f"\n{outcome}\n" if outcome else "",
        outcome_lines=outcome,
        link=context.link(settings),
    )
    return Email(context.recipient.email, subject, text, html, context.claim.id)


def _outcome_lines(payload: dict[str, object]) -> list[str]:
    """The resolution's outcome, note and new warranty, as the status change recorded them (docs/api.md §6.2);
    none for other changes."""
    outcome = payload.get("outcome")
    if not isinstance(outcome, str):
        return []
    lines = [f"Outcome: {OUTCOME_LABELS.get(outcome, outcome)}"]
    if payload.get("outcomeNote"):
        lines.append(f"Note: {payload['outcomeNote']}")
    extension = payload.get("warrantyExtension")
    if isinstance(extension, dict):
        months = f"{extension['months']} month{'' if extension['months'] == 1 else 's'}"
        lines.append(f"New warranty: {months}, from {extension['startsOn']} to {extension['endsOn']}")
    return lines


async def status_push(
    session: AsyncSession, payload: dict[str, object]
) -> tuple[int, PushNotification] | None:
    context = await claim_context(session, int(str(payload["claimId"])), int(str(payload["recipientId"])))
    if context is None or not context.recipient.notifications_enabled:
        return None
    status = STATUS_LABELS.get(str(payload["status"]), str(payload["status"]))
    notification = PushNotification(
        title=f"Claim #{context.claim.id} ({context.product.name})",
        message=f"Status: {status}",
        data={"type": "status_update", "claimId": str(context.claim.id), "status": str(payload["status"])},
        thread=claim_thread(context.claim.id),
    )
    return context.recipient.id, notification
