"""Message rows (from app.messages.repository) into the shapes of the messages API."""

from __future__ import annotations

from typing import Any

from app.messages.schemas import AdminMessageOut, AttachmentOut, MessageCreated, MessageOut
from app.models import Message, User
from app.models.user import DELETED_USER
from app.users.schemas import PROFILE_PICTURE_PATH


def attachment_url(claim_id: int, message_id: int) -> str:
    return f"/api/claims/{claim_id}/messages/{message_id}/attachment"


def _fields(row: Any) -> dict[str, Any]:
    deleted = row.sender_id is None
    attachment = None
    if row.attachment_name is not None:
        attachment = AttachmentOut(
            filename=row.attachment_name,
            mime_type=row.attachment_mime,
            size=row.attachment_size,
            url=attachment_url(row.claim_id, row.id),
        )
    return {
        "id": str(row.id),
        "sender_id": None if deleted else str(row.sender_id),
        "sender_name": DELETED_USER if deleted else row.sender_name,
        "sender_email": None if deleted else row.sender_email,
        "sender_profile_picture": (
            f"{PROFILE_PICTURE_PATH}{row.sender_picture}" if row.sender_picture and not deleted else None
        ),
        "message": row.body,
        "created_at": row.created_at,
        "is_read": row.read_at is not None,
        "read_at": row.read_at,
        "attachment": attachment,
    }


def message_out(row: Any) -> MessageOut:
    return MessageOut(**_fields(row))


def admin_message_out(row: Any) -> AdminMessageOut:
    return AdminMessageOut(**_fields(row), claim_id=row.claim_id)


def message_created(message: Message, sender: User) -> MessageCreated:
    """The send answer: nobody has read a message that was just sent."""
    return MessageCreated(
        id=str(message.id),
        sender_id=str(sender.id),
        sender_name=sender.name,
        sender_email=sender.email,
        message=message.body,
        created_at=message.created_at,
        is_read=False,
        read_at=None,
    )
