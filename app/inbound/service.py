"""Turning a verified inbound email into a claim message, or saying why not.

Order: readable payload -> not stale -> the body from the provider when the event carries only metadata
-> sender authentication -> loop guards -> claim address -> duplicate -> claim -> sender -> participant
-> closed -> reply text and attachment -> keys recorded (savepoint) -> the message, exactly as if sent.

Mail refused before its sender is known to be a participant writes nothing (it is logged and counted):
a stranger must not be able to write into someone's claim. A participant's mail that posts nothing
leaves one timeline entry, recorded with its delivery keys so a redelivery is a duplicate.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.changes.dispatch import record
from app.changes.events import InboundAccepted, InboundIgnored
from app.config import Settings
from app.core.ids import MAX_ID
from app.errors import Conflict, Forbidden, NotFound, PayloadTooLarge, UnsupportedMediaType, ValidationFailed
from app.inbound import deliveries
from app.inbound.attachment_choice import pick_attachment
from app.inbound.formats import InboundEmail, NotAnEmail, claim_id_from, parse_payload
from app.inbound.guards import is_automated, own_address, sender_not_authenticated
from app.inbound.reply import OurAddresses, extract_reply_off_loop
from app.inbound.resend import InvalidProviderId, fetch_received
from app.inbound.staleness import is_stale
from app.messages.schemas import MAX_MESSAGE_LENGTH
from app.messages.service import AttachmentUpload, post_message
from app.models import Claim, User
from app.models.enums import ClaimStatus
from app.observability.metrics import series
from app.storage.storage import Storage
from app.users.repository import UserRepository

logger = logging.getLogger("warranty.inbound")


@dataclass(frozen=True)
class Outcome:
    status: str  # processed | ignored | duplicate
    claim_id: int | None = None
    message_id: int | None = None
    reason: str | None = None  # why an email was ignored, when the answer says it


DUPLICATE = Outcome("duplicate")
# The reasons the answer carries.
_TOLD = {"stale", "resend_api_key_missing", "invalid_provider_id", "sender_not_authenticated"}


def _refused(reason: str) -> Outcome:
    """Ignored, counted by reason; written nowhere."""
    series().inbound_ignored.labels(reason).inc()
    return Outcome("ignored", reason=reason if reason in _TOLD else None)


async def receive(
    session: AsyncSession, storage: Storage, settings: Settings, payload: object, *, webhook_id: str | None
) -> Outcome:
    """Handle one verified delivery. Raises 400/403/404 for permanent rejections."""
    email = await _complete(payload, settings)
    if isinstance(email, Outcome):
        return email
    if sender_not_authenticated(email, settings):
        logger.warning("inbound email from %s ignored: its authentication results failed", email.sender)
        return _refused("sender_not_authenticated")
    claim_id = claim_id_from(email.recipients, settings.mail_domain, email.mailbox_hash)
    keys = _keys(email, webhook_id)
    if is_automated(email, settings):
        logger.info("inbound email from %s ignored: automated", email.sender)
        return await _automated(session, email, claim_id, keys)
    if claim_id is None:
        raise ValidationFailed(f"No recipient is a claim address claim+<id>@{settings.mail_domain}.")
    if await deliveries.seen(session, keys):
        return DUPLICATE
    claim, sender = await _participant(session, email, claim_id)
    if claim.status == ClaimStatus.CLOSED:
        return await _ignored_on(session, claim, email, "claim_closed", sender, keys)
    return await _post(session, storage, settings, email, claim, sender, keys)


async def _complete(payload: object, settings: Settings) -> InboundEmail | Outcome:
    """The email, its body fetched from the provider when the event carries only metadata; or why not."""
    try:
        email = parse_payload(payload)
    except NotAnEmail as event_type:
        logger.info("inbound event %s ignored: not a received email", event_type)
        return _refused("not_an_email")
    if is_stale(payload, email, settings.inbound_dedup_days):
        logger.warning("inbound email from %s ignored: dated before the deduplication window", email.sender)
        return _refused("stale")
    if not email.body_missing:
        return email
    if not settings.resend_api_key.get_secret_value():
        logger.warning(
            "inbound email %s ignored: the event carries no body and WARRANTY_RESEND_API_KEY is not set",
            email.provider_email_id,
        )
        return _refused("resend_api_key_missing")
    try:
        fetched = await fetch_received(email, settings) if email.provider_email_id else None
    except InvalidProviderId as refused:  # nothing was asked of Resend
        logger.info("inbound email ignored: %r is no Resend email id", email.provider_email_id)
        return _refused(refused.reason)
    if fetched is None:
        logger.info("inbound email %s ignored: unknown to Resend", email.provider_email_id)
        return _refused("unknown_to_provider")
    return fetched


def _keys(email: InboundEmail, webhook_id: str | None) -> list[str]:
    content = deliveries.content_key(email.sender, email.recipients, email.subject, email.text, email.html)
    return deliveries.delivery_keys(webhook_id, email.provider_email_id, email.message_id, content)


async def _participant(session: AsyncSession, email: InboundEmail, claim_id: int) -> tuple[Claim, User]:
    """The claim and the participant who sent the email; 404 or 403 (nothing written) otherwise."""
    claim = await session.get(Claim, claim_id) if claim_id <= MAX_ID else None
    if claim is None:
        raise NotFound("No such claim.")
    sender = await UserRepository(session).get_by_email(email.sender) if email.sender else None
    if sender is None:
        logger.info("inbound email to claim %s: its sender %s is no user", claim_id, email.sender)
        raise NotFound("No user has the sender's address.")
    # Participants only; not admins: a forged From of an admin must not reach every claim.
    if sender.id not in (claim.customer_id, claim.supplier_id):
        logger.info("inbound email to claim %s: its sender %s takes no part in it", claim_id, email.sender)
        raise Forbidden("The sender is not a participant of this claim.")
    return claim, sender


async def _automated(
    session: AsyncSession, email: InboundEmail, claim_id: int | None, keys: list[str]
) -> Outcome:
    """Auto-replies and bounces post nothing (no mail loop). A participant's shows on its claim's timeline
    (no actor: nobody wrote it); anyone else's is only logged and counted."""
    if claim_id is None:
        return _refused("automated")
    try:
        claim, _sender = await _participant(session, email, claim_id)
    except (NotFound, Forbidden):
        return _refused("automated")
    if await deliveries.seen(session, keys):
        return DUPLICATE
    return await _ignored_on(session, claim, email, "automated", None, keys)


async def _ignored_on(
    session: AsyncSession, claim: Claim, email: InboundEmail, reason: str, actor: User | None, keys: list[str]
) -> Outcome:
    """A participant's email that posts nothing: once on the claim's timeline, with the reason."""
    async with session.begin_nested():
        if await deliveries.record(session, keys) is None:
            return DUPLICATE
        await record(session, InboundIgnored(claim, actor, reason, email.sender))
    series().inbound_ignored.labels(reason).inc()
    return Outcome("ignored", claim_id=claim.id)


async def _post(
    session: AsyncSession,
    storage: Storage,
    settings: Settings,
    email: InboundEmail,
    claim: Claim,
    sender: User,
    keys: list[str],
) -> Outcome:
    ours = OurAddresses(sender=own_address(settings), mail_domain=settings.mail_domain)
    reply = await extract_reply_off_loop(
        email.text, email.html, max_part=settings.inbound_max_part, ours=ours
    )
    text = reply[:MAX_MESSAGE_LENGTH].rstrip()
    picked = await pick_attachment(email.attachments, settings)
    if not text and picked is None:
        return await _ignored_on(session, claim, email, "empty_reply", sender, keys)
    upload = AttachmentUpload(picked.data, picked.file_name, picked.mime_type) if picked else None
    try:
        try:
            return await _create(session, storage, settings, claim, sender, text, upload, keys)
        except (PayloadTooLarge, UnsupportedMediaType):
            if not text:
                raise
            # The messages service refused the file (its limits may be stricter): keep the words.
            return await _create(session, storage, settings, claim, sender, text, None, keys)
    except Conflict:
        # Closed between our check and the insert: like a closed claim, nothing is posted.
        return await _ignored_on(session, claim, email, "claim_closed", sender, keys)


async def _create(
    session: AsyncSession,
    storage: Storage,
    settings: Settings,
    claim: Claim,
    sender: User,
    text: str,
    upload: AttachmentUpload | None,
    keys: list[str],
) -> Outcome:
    """Record the keys, then the message, in one savepoint: a refusal leaves neither behind."""
    async with session.begin_nested():
        rows = await deliveries.record(session, keys)
        if rows is None:
            return DUPLICATE
        message = await post_message(
            session, storage, settings, claim=claim, sender=sender, text=text, attachment=upload
        )
        for row in rows:
            row.message_id = message.id
        await record(session, InboundAccepted(claim, sender, message))
        await session.flush()
    return Outcome("processed", claim_id=claim.id, message_id=message.id)
