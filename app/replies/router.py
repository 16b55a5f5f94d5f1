"""Saved replies (docs/api.md, "Saved replies"): an organisation's managers write them under
/api/organizations/{id}/replies, its agents read them; admins may do both. Agents send one with
`POST /api/claims/{id}/messages` {replyId} (app.messages)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status

from app.api.dependencies import CurrentUser, Pagination
from app.api.openapi import errors, with_examples
from app.api.pagination import Page, build_page
from app.replies import service
from app.replies.dependencies import OrganizationId, ReplyId, ReplyRepo
from app.replies.schemas import ReplyCreate, ReplyOut, ReplyUpdate

router = APIRouter(prefix="/api", tags=["saved replies"])


@router.get("/organizations/{id}/replies", response_model=Page[ReplyOut], responses=errors(400, 401, 404))
async def list_saved_replies(
    id: OrganizationId, request: Request, user: CurrentUser, page: Pagination, replies: ReplyRepo
) -> dict[str, object]:
    """The organisation's saved replies, oldest first, placeholders unrendered; always paged (the
    envelope, `cursor` too). Its members in any role and admins; 404 for anyone else."""
    await service.ensure_reader(user, id, replies=replies)
    after = page.after_key(("int",))
    found, total = await replies.page(id, page.fetch, page.offset, after[0] if after else None)
    shown, next_cursor = page.window(found, lambda reply: (reply.id,))
    return build_page([ReplyOut.model_validate(reply) for reply in shown], total, page, request, next_cursor)


@router.post(
    "/organizations/{id}/replies",
    status_code=status.HTTP_201_CREATED,
    response_model=ReplyOut,
    responses=with_examples(
        errors(400, 401, 403, 404),
        400,
        {
            "unknownPlaceholder": (
                "VALIDATION_FAILED",
                "Invalid input: body: Value error, unknown placeholder {{customer.email}}",
                {"fields": {"body": "Value error, unknown placeholder {{customer.email}}"}},
            ),
            "unclosed": (
                "VALIDATION_FAILED",
                "Invalid input: body: Value error, the {{ at character 7 is never closed",
                {"fields": {"body": "Value error, the {{ at character 7 is never closed"}},
            ),
        },
    ),
)
async def create_saved_reply(
    id: OrganizationId,
    body: ReplyCreate,
    request: Request,
    response: Response,
    user: CurrentUser,
    replies: ReplyRepo,
) -> ReplyOut:
    """Save a reply: its managers and admins (403 for its agents, 404 for anyone else). An unknown
    placeholder, or a `{{` never closed, is a 400 VALIDATION_FAILED whose `details.fields.body` names it."""
    reply = await service.create(user, id, body.title, body.body, replies=replies)
    response.headers["Location"] = f"{request.url.path}/{reply.id}"
    return ReplyOut.model_validate(reply)


@router.get("/organizations/{id}/replies/{replyId}", response_model=ReplyOut, responses=errors(400, 401, 404))
async def get_saved_reply(
    id: OrganizationId, reply_id: ReplyId, user: CurrentUser, replies: ReplyRepo
) -> ReplyOut:
    """One saved reply, for the organisation's members and admins."""
    return ReplyOut.model_validate(await service.get(user, id, reply_id, replies=replies))


@router.patch(
    "/organizations/{id}/replies/{replyId}", response_model=ReplyOut, responses=errors(400, 401, 403, 404)
)
async def update_saved_reply(
    id: OrganizationId, reply_id: ReplyId, body: ReplyUpdate, user: CurrentUser, replies: ReplyRepo
) -> ReplyOut:
    """Change its `title` and/or `body` (checked as at creation): its managers and admins."""
    reply = await service.update(user, id, reply_id, title=body.title, body=body.body, replies=replies)
    return ReplyOut.model_validate(reply)


@router.delete(
    "/organizations/{id}/replies/{replyId}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(400, 401, 403, 404),
)
async def delete_saved_reply(
    id: OrganizationId, reply_id: ReplyId, user: CurrentUser, replies: ReplyRepo
) -> None:
    """Delete it: its managers and admins. Messages sent with it keep their text."""
    await service.delete(user, id, reply_id, replies=replies)
