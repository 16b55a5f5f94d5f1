"""What a claim notification says, loaded from the database by id at send time. Each function answers
None when there is nothing to send any more (the message, claim or recipient is gone, or the recipient
switched that channel off since), and skips a recipient the change no longer concerns.

A recipient is a user (`recipientId`), or the address of the organisation a claim is routed to, told of
it while none of its agents is assigned (`recipientEmail` with `organizationId`: an address without an
account, emailed whatever any setting says; contract 17.7)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.access.claims import still_notified, unassigned_organization
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
    recipient: User | None  # None: the organisation's own address
    address: str  # where the email goes

    def link(self, settings: Settings) -> str:
        return f"{settings.frontend_url.rstrip('/')}/claims/{self.claim.id}"

    @property
    def recipient_is_customer(self) -> bool:
        return self.recipient is not None and self.recipient.id == self.claim.customer_id

    @property
    def wants_email(self) -> bool:
        return self.recipient is None or self.recipient.email_notifications_enabled

    @property
    def wants_push(self) -> bool:
        return self.recipient is not None and self.recipient.notifications_enabled


async def claim_context(
    session: AsyncSession, claim_id: int, payload: dict[str, object]
) -> ClaimContext | None:
    """The claim, its product and the payload's recipient; Skipped when the change no longer concerns
    the recipient (sent later than it was decided, a retry: a replaced supplier, a member who left, a
    muted claim, an organisation whose claim an agent took or that was handed on)."""
    claim = await session.get(Claim, claim_id)
    if claim is None:
        return None
    if "recipientId" in payload:
        recipient_id = int(str(payload["recipientId"]))
        recipient = await session.get(User, recipient_id)
        if recipient is None:
            return None
        if not await still_notified(session, claim, recipient_id):
            raise Skipped(f"user {recipient_id} is no longer a participant of claim {claim_id}")
        address = recipient.email
    else:
        recipient, address = None, str(payload["recipientEmail"])
        if unassigned_organization(claim) != payload.get("organizationId"):
            raise Skipped(f"claim {claim_id} is no longer waiting for an agent of that organization")
    product = await session.get(Product, claim.product_id)
    return ClaimContext(claim, product, recipient, address) if product is not None else None


async def _message_context(
    session: AsyncSession, message_id: int, payload: dict[str, object]
) -> tuple[Message, str, ClaimContext] | None:
    message = await session.get(Message, message_id)
    if message is None:
        return None
    context = await claim_context(session, message.claim_id, payload)
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
    session: AsyncSession, payload: dict[str, object], settings: Settings, storage: Storage
) -> Email | None:
    loaded = await _message_context(session, int(str(payload["messageId"])), payload)
    if loaded is None or not loaded[2].wants_email:
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
    return Email(context.address, subject, text, html, context.claim.id, attachments)


async def message_push(
    session: AsyncSession, payload: dict[str, object]
) -> tuple[int, PushNotification] | None:
    loaded = await _message_context(session, int(str(payload["messageId"])), payload)
    if loaded is None:
        return None
    message, sender, context = loaded
    if context.recipient is None or not context.wants_push:
        return None
    preview = message.body if len(message.body) <= 140 else message.body[:139] + "…"
    notification = PushNotification(
        title=f"{sender} {DASH} claim #{context.claim.id} ({context.product.name})",
        message=preview or "Sent an attachment",
        data={"type": "new_message", "claimId": str(context.claim.id), "messageId": str(message.id)},
        thread=claim_thread(context.claim.id),
    )
    return context.recipient.id, notification


async def status_email(session: AsyncSession, payload: dict[str, object], settings: Settings) -> Email | None:
    context = await claim_context(session, int(str(payload["claimId"])), payload)
    if context is None or not context.wants_email:
        return None
    status = STATUS_LABELS.get(str(payload["status"]), str(payload["status"]))
    subject = f"Your claim #{context.claim.id} {DASH} {context.product.name} is now {status}"
    outcome = "\n".join(_outcome_lines(payload))
    # The claim's customer, told it is resolved, is asked to rate it (contract 17.11).
    rates = payload["status"] == ClaimStatus.RESOLVED and context.recipient_is_customer
    text, html = render(
        "claim_resolved" if rates else "claim_status",
        subject,
        claim_id=context.claim.id,
        product=context.product.name,
        status=status,
        outcome=f"\n{outcome}\n" if outcome else "",
        outcome_lines=outcome,
        link=context.link(settings),
        rating_link=f"{context.link(settings)}/rating",
    )
    return Email(context.address, subject, text, html, context.claim.id)


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
    context = await claim_context(session, int(str(payload["claimId"])), payload)
    if context is None or context.recipient is None or not context.wants_push:
        return None
    status = STATUS_LABELS.get(str(payload["status"]), str(payload["status"]))
    notification = PushNotification(
        title=f"Claim #{context.claim.id} ({context.product.name})",
        message=f"Status: {status}",
        data={"type": "status_update", "claimId": str(context.claim.id), "status": str(payload["status"])},
        thread=claim_thread(context.claim.id),
    )
    return context.recipient.id, notification
