"""The messages API (docs/api.md §6.5): ids as numeric strings, camelCase fields."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from app.api.schemas import IsoUtc, RequestModel, ResponseModel
from app.core.ids import MAX_ID

MAX_MESSAGE_LENGTH = 10_000  # characters; a longer inbound reply is cut there


class AttachmentIn(RequestModel):
    """An attachment as sent: a `data:<mime>;base64,<data>` URL or bare base64."""

    data_url: str = Field(min_length=1, description="`data:<mime>;base64,<data>` or bare base64.")
    file_name: str = Field(min_length=1, max_length=255, examples=["photo.jpg"])
    mime_type: str | None = Field(default=None, max_length=100, examples=["image/jpeg"])
    size: int | None = Field(default=None, ge=0, description="Decoded size in bytes; checked when sent.")


class MessageSend(RequestModel):
    """At least one of `message`, `attachment` and `replyId`."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"message": "The replacement part is on its way."},
                {"replyId": 3, "message": "We ship it tomorrow."},
            ]
        }
    )

    message: str | None = Field(
        default=None,
        max_length=MAX_MESSAGE_LENGTH,
        description="Up to 10,000 characters; with `replyId`, appended to the reply after a blank line.",
    )
    attachment: AttachmentIn | None = None
    reply_id: int | None = Field(
        default=None,
        ge=1,
        le=MAX_ID,
        description=(
            "A saved reply of the claim's organization (its supplier side and admins; 403 for its customer "
            "side, 400 for a reply of another organization or none): its body rendered for the claim is "
            "the message (docs/api.md, 'Saved replies'). The whole text stays within 10,000 characters."
        ),
        examples=[3],
    )


class AttachmentOut(ResponseModel):
    filename: str
    mime_type: str
    size: int
    url: str = Field(examples=["/api/claims/42/messages/7/attachment"])


class MessageCreated(ResponseModel):
    """The send answer: the message without `senderProfilePicture` and `attachment` (docs/api.md §6.5)."""

    id: str = Field(examples=["7"])
    sender_id: str | None = Field(examples=["3"])
    sender_name: str
    sender_email: str | None
    message: str
    created_at: IsoUtc
    is_read: bool
    read_at: IsoUtc | None


class MessageOut(MessageCreated):
    """A message (docs/api.md §6.5). `senderId`/`senderEmail` are null and `senderName` "Deleted user" once
    the sender's account is gone. `isRead`/`readAt`: for a message the caller received, whether the caller
    read it; for the caller's own message, whether the other participant read it (read receipt)."""

    sender_profile_picture: str | None = Field(examples=["/api/user/profile-picture/ab12.jpg"])
    attachment: AttachmentOut | None


class AdminMessageOut(MessageOut):
    """A message in the admin list, with its claim; `isRead`/`readAt` there mean read by a recipient
    (a participant other than the sender)."""

    claim_id: int


class MarkedRead(ResponseModel):
    marked_as_read: int
    message_ids: list[str]
