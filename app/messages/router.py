"""The messages API (docs/api.md §6.5): a claim's conversation, its attachments and read state, and the
admin's list of every message."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Response, status
from starlette.convertors import StringConvertor, register_url_convertor

from app.access.claims import require_writer
from app.api.dependencies import (
    ONE_SNAPSHOT,
    AdminUser,
    CachedPages,
    CurrentUser,
    Pagination,
    SessionDep,
    SettingsDep,
    StorageDep,
    VisibleClaim,
)
from app.api.openapi import errors
from app.api.pagination import JsonList, Page, list_json
from app.core.ids import DIGITS_ONLY, MAX_ID
from app.errors import NotFound
from app.messages.attachments import decode_attachment
from app.messages.dependencies import MessageQuery, MessageRepo
from app.messages.reads import mark_read
from app.messages.repository import LIST_KEY
from app.messages.schemas import AdminMessageOut, MarkedRead, MessageCreated, MessageOut, MessageSend
from app.messages.serializers import admin_message_out, message_created, message_out
from app.messages.service import post_message
from app.pagecache.scopes import MESSAGES_ALL, USERS_ALL, messages_of
from app.realtime.handoff import read_handoff
from app.replies.service import render_for_claim
from app.storage.files import content_disposition
from app.storage.storage import streamed

router = APIRouter(prefix="/api", tags=["messages"])

MessageId = Annotated[int, Path(alias="messageId", description="The message's id."), DIGITS_ONLY]


class MessageIdSegment(StringConvertor):
    """A `{messageId}` path segment: any text (a non-integer is a 400, like every path id) except `read`,
    the sibling resource: GET /claims/{id}/messages/read is then a 405 naming POST in `Allow`, not a 400
    for a message id "read"."""

    regex = "(?!read$)[^/]+"


register_url_convertor("message_id", MessageIdSegment())


def _in_range(message_id: int) -> bool:
    # Out of the id column's range is simply not found (PostgreSQL would refuse to compare it).
    return 1 <= message_id <= MAX_ID


MessageList = list[MessageOut] | Page[MessageOut]


MESSAGES_JSON = JsonList(MessageOut)
ADMIN_MESSAGES_JSON = JsonList(AdminMessageOut)


async def _claim_messages(
    claim: VisibleClaim,
    user: CurrentUser,
    params: Pagination,
    messages: MessageRepo,
    page: CachedPages,
    session: SessionDep,
    settings: SettingsDep,
) -> Response:
    async def compute() -> bytes:
        if not params.requested:
            rows, _ = await messages.list_for_claim(claim, user.id)
            return MESSAGES_JSON([message_out(row) for row in rows])
        after = params.after_key(LIST_KEY)
        found, total = await messages.list_for_claim(
            claim, user.id, offset=params.offset, limit=params.fetch, after=after
        )
        rows, next_cursor = params.window(found, lambda row: (row.created_at, row.id))
        items = [message_out(row) for row in rows]
        return list_json(MESSAGES_JSON(items), len(items), total, params, page.request, next_cursor)

    async def link() -> dict[str, str]:
        return {"Link": await read_handoff(session, settings, claim.id)}

    return await page.respond([messages_of(claim.id), USERS_ALL], compute, link)


@router.get(
    "/claims/{claimId}/messages",
    response_model=MessageList,
    responses=errors(400, 401, 404),
    dependencies=[ONE_SNAPSHOT],
)
async def list_claim_messages(page: Annotated[Any, Depends(_claim_messages)]) -> Any:
    """A claim's messages, oldest first: a bare array of all of them, or the 8.1 envelope when `page`
    or `limit` is given. `isRead`/`readAt` are the caller's: for a message they received, whether they
    read it; for their own, whether the other participant read it. 404 for a claim the caller may not
    see. `Link` hands off to the hub, as on `GET /api/claims/{id}`."""
    return page


@router.get(
    "/claims/messages/{claimId}",
    response_model=MessageList,
    responses=errors(400, 401, 404),
    dependencies=[ONE_SNAPSHOT],
)
async def list_claim_messages_alias(page: Annotated[Any, Depends(_claim_messages)]) -> Any:
    """The same list as `GET /api/claims/{claimId}/messages` (the second path shape of docs/api.md §6.5)."""
    return page


@router.post(
    "/claims/{claimId}/messages",
    status_code=status.HTTP_201_CREATED,
    response_model=MessageCreated,
    responses=errors(400, 401, 403, 404, 409, 413, 415),
)
async def send_message(
    body: MessageSend,
    claim: VisibleClaim,
    user: CurrentUser,
    session: SessionDep,
    storage: StorageDep,
    settings: SettingsDep,
    response: Response,
) -> MessageCreated:
    """Post a message in a claim: its customer, its assigned supplier, or an admin (support). Text up to
    10,000 characters and/or one attachment (jpg, png, gif, webp or pdf, up to 10 MB decoded) as a
    base64 data URL. 400 blank without attachment, bad base64 or a wrong `size`; 415 when the bytes are
    not what `fileName`/`mimeType` say; 409 CLAIM_CLOSED on a closed claim; 404 for a claim the caller
    may not see; 403 for a viewer of the household the product is shared with. The other participants
    are notified (real time, email, push).

    `replyId` sends a saved reply of the claim's organization, rendered for the claim as plain text, with
    `message` appended after a blank line (docs/api.md, "Saved replies")."""
    await require_writer(session, user, claim)
    text = body.message or ""
    if body.reply_id is not None:
        text = await render_for_claim(session, claim, user, body.reply_id, text)
    upload = decode_attachment(body.attachment, settings.max_attachment_size) if body.attachment else None
    message = await post_message(
        session, storage, settings, claim=claim, sender=user, text=text, attachment=upload
    )
    response.headers["Location"] = f"/api/claims/{claim.id}/messages/{message.id}"
    return message_created(message, user)


@router.post("/claims/{claimId}/messages/read", response_model=MarkedRead, responses=errors(400, 401, 404))
async def read_messages(claim: VisibleClaim, user: CurrentUser, session: SessionDep) -> MarkedRead:
    """Mark every message of the claim the caller received and had not read as read by the caller;
    answers the ones this call marked (a second call marks none). Publishes `messages_read` when it
    marked any."""
    marked = await mark_read(session, claim, user)
    return MarkedRead(marked_as_read=len(marked), message_ids=[str(i) for i in marked])


@router.get(
    "/claims/{claimId}/messages/{messageId:message_id}",
    response_model=MessageOut,
    responses=errors(400, 401, 404),
)
async def get_message(
    claim: VisibleClaim, message_id: MessageId, user: CurrentUser, messages: MessageRepo
) -> MessageOut:
    """One message of a claim, as in the list (the `Location` of a sent message)."""
    row = await messages.one_for_claim(claim, user.id, message_id) if _in_range(message_id) else None
    if row is None:
        raise NotFound("No such message.")
    return message_out(row)


@router.get(
    "/claims/{claimId}/messages/{messageId}/attachment",
    response_class=Response,
    responses={200: {"content": {"application/octet-stream": {}}}, **errors(400, 401, 404)},
)
async def download_attachment(
    claim: VisibleClaim, message_id: MessageId, messages: MessageRepo, storage: StorageDep
) -> Response:
    """The attachment's bytes, with its Content-Type, `Content-Disposition: attachment` and
    `X-Content-Type-Options: nosniff`. 404 when the message has none or the claim is not visible."""
    message = await messages.attachment_of(claim.id, message_id) if _in_range(message_id) else None
    if message is None or message.attachment_key is None:
        raise NotFound("No such attachment.")
    download = await storage.open(message.attachment_key)
    return streamed(
        download,
        message.attachment_mime or "application/octet-stream",
        {
            "Content-Disposition": content_disposition(message.attachment_name or "attachment"),
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "private, no-store",
        },
    )


@router.get("/messages", response_model=Page[AdminMessageOut], responses=errors(400, 401, 403))
async def list_all_messages(
    admin: AdminUser,
    params: Pagination,
    where: MessageQuery,
    messages: MessageRepo,
    page: CachedPages,
) -> Response:
    """Every message of every claim, newest first (admin only), always in the 8.1 envelope. Filters
    `claimId`, `senderId`, `unread` (true: no recipient has read it yet). `isRead`/`readAt` here mean
    read by a recipient (a participant other than the sender)."""

    async def compute() -> bytes:
        after = params.after_key(LIST_KEY)
        found, total = await messages.list_all(where, offset=params.offset, limit=params.fetch, after=after)
        rows, next_cursor = params.window(found, lambda row: (row.created_at, row.id))
        items = [admin_message_out(row) for row in rows]
        return list_json(ADMIN_MESSAGES_JSON(items), len(items), total, params, page.request, next_cursor)

    return await page.respond([MESSAGES_ALL, USERS_ALL], compute)
