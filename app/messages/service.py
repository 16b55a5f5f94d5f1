"""Posting a message and marking messages read: everything a sent message does, in the caller's
transaction. The send endpoint and the inbound email service both post through `post_message`."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.changes.dispatch import record
from app.changes.events import MessagePosted
from app.claims.assignment import take_if_first
from app.claims.repository import ClaimRepository
from app.config import Settings
from app.errors import Conflict, ValidationFailed
from app.messages.schemas import MAX_MESSAGE_LENGTH
from app.models import Claim, Message, User
from app.models.enums import ClaimStatus
from app.organizations import deadlines
from app.storage.files import check_file, display_file_name
from app.storage.storage import Storage, discard_on_rollback

ATTACHMENT_KINDS = {"jpg", "png", "gif", "webp", "pdf"}
ATTACHMENT_FOLDER = "attachments"
# Files stored by the session's open transaction: removed if it rolls back, kept once it commits.


@dataclass
class AttachmentUpload:
    data: bytes
    file_name: str
    mime_type: str | None


def claim_closed() -> Conflict:
    return Conflict("The claim is closed; it takes no new messages.", code="CLAIM_CLOSED")


async def post_message(
    session: AsyncSession,
    storage: Storage,
    settings: Settings,
    *,
    claim: Claim,
    sender: User,
    text: str,
    attachment: AttachmentUpload | None,
) -> Message:
    """Post `text` (and `attachment`) by `sender` in `claim`; the caller has checked that the sender may.

    409 CLAIM_CLOSED on a closed claim; 400 for a message over 10,000 characters or blank without an
    attachment; 413/415 for an attachment too large or not the jpg/png/gif/webp/pdf it claims to be.
    Records MessagePosted (app.changes: the `new_message` event, the other participants' notifications,
    the webhook, the timeline entry, the cache invalidations) in the same transaction. A member of the
    claim's organisation answering while it has no agent becomes its agent first (contract 17.7), so the
    message notifies the customer's side only.
    """
    if (
        claim.status == ClaimStatus.CLOSED
    ):  # an early answer; the locked read at the end is the one that counts
        raise claim_closed()
    text = text.strip()
    if len(text) > MAX_MESSAGE_LENGTH:
        raise ValidationFailed.field("message", f"at most {MAX_MESSAGE_LENGTH} characters")
    if not text and attachment is None:
        raise ValidationFailed.field("message", "a message needs text or an attachment")
    await take_if_first(claim, sender, claims=ClaimRepository(session))
    message = Message(claim_id=claim.id, sender_id=sender.id, body=text)
    if attachment is not None:
        await _store_attachment(storage, settings, attachment, message)
        discard_on_rollback(session, storage, message.attachment_key)  # type: ignore[arg-type]
    session.add(message)
    await session.flush()
    if claim.organization_id is not None:
        supplier_side = await deadlines.supplier_side(session, sender, claim)
        await deadlines.message_posted(session, claim, supplier_side, message.created_at)
    await record(session, MessagePosted(message, claim, sender))
    # Everything is written before the claim's row is locked, so concurrent messages in one claim wait
    # for each other only for this read and the commit.
    await session.flush()
    await _ensure_open(session, claim)
    return message


# Built once; parameters claim_id, and user_ids for the participants.
# FOR NO KEY UPDATE: it waits for a close (an UPDATE) and for other messages' locks, but not for the key
# share lock each message's insert takes on its claim (FOR UPDATE would, and two messages would deadlock).
_LOCKED_STATUS = select(Claim.status).where(Claim.id == bindparam("claim_id")).with_for_update(key_share=True)


async def _ensure_open(session: AsyncSession, claim: Claim) -> None:
    # Read the status again under a row lock (PostgreSQL): a close that committed first is seen (and this
    # transaction rolls back with everything it wrote); one that comes later waits for our commit. So no
    # message lands in a closed claim.
    status = await session.scalar(_LOCKED_STATUS, {"claim_id": claim.id})
    if status is None or status == ClaimStatus.CLOSED:
        raise claim_closed()


async def _store_attachment(
    storage: Storage, settings: Settings, upload: AttachmentUpload, message: Message
) -> None:
    kind = await check_file(
        upload.data,
        allowed=ATTACHMENT_KINDS,
        max_size=settings.max_attachment_size,
        max_pixels=settings.max_image_pixels,
        file_name=upload.file_name,
        declared_mime=upload.mime_type,
    )
    message.attachment_key = await storage.save(ATTACHMENT_FOLDER, upload.data, kind.extension)
    message.attachment_name = display_file_name(upload.file_name, f"attachment.{kind.extension}")
    message.attachment_mime = kind.mime_type
    message.attachment_size = len(upload.data)
