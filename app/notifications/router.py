"""Device tokens (each user's own) and the admin view of the notification outbox."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Path, Query, Request, Response, status

from app.api.dependencies import AdminUser, CurrentUser, Pagination, SettingsDep
from app.api.openapi import errors
from app.api.pagination import Page, build_page
from app.core.ids import DIGITS_ONLY
from app.models import DeviceToken, OutboxItem
from app.models.enums import OutboxStateName, Platform
from app.notifications.dependencies import DeviceTokenRepo, OutboxRepo
from app.notifications.schemas import (
    BulkRetried,
    BulkRetry,
    DeviceTokenIn,
    DeviceTokenOut,
    NotificationItem,
)

router = APIRouter(prefix="/api", tags=["notifications"])


@router.post(
    "/device-tokens",
    status_code=status.HTTP_201_CREATED,
    response_model=DeviceTokenOut,
    responses=errors(400, 401),
)
async def register_device_token(
    body: DeviceTokenIn, user: CurrentUser, tokens: DeviceTokenRepo, settings: SettingsDep, response: Response
) -> DeviceToken:
    """Register a device for push notifications. Registering a token that is already known (this user's or
    another's: the device changed hands) moves it to the caller. Always 201. A user keeps at most
    `WARRANTY_MAX_DEVICE_TOKENS_PER_USER` (20) tokens: beyond, the least recently registered is dropped."""
    token = await tokens.register(
        user.id, body.token, Platform(body.platform), max_per_user=settings.max_device_tokens_per_user
    )
    response.headers["Location"] = f"/api/device-tokens/{quote(token.token, safe='')}"
    return token


@router.get("/device-tokens", response_model=list[DeviceTokenOut], responses=errors(401))
async def list_device_tokens(user: CurrentUser, tokens: DeviceTokenRepo) -> list[DeviceToken]:
    """The caller's registered devices, oldest first."""
    return await tokens.list_for(user.id)


@router.delete(
    "/device-tokens/{token:path}", status_code=status.HTTP_204_NO_CONTENT, responses=errors(401, 404)
)
async def delete_device_token(token: str, user: CurrentUser, tokens: DeviceTokenRepo) -> None:
    """Stop pushing to a device (URL-encode the token). Only the caller's own tokens; others are 404."""
    await tokens.remove(user.id, token)


@router.get("/admin/notifications", response_model=Page[NotificationItem], responses=errors(400, 401, 403))
async def list_notifications(
    request: Request,
    _admin: AdminUser,
    page: Pagination,
    outbox: OutboxRepo,
    status: OutboxStateName | None = Query(
        default=None, description="Only notifications in this state (all when absent)."
    ),
) -> dict[str, object]:
    """The notification outbox, newest first, always paged (envelope). `?status=failed` lists what failed
    every attempt; retry those with `POST /api/admin/notifications/{id}/retry`. Not cached: the worker
    changes it all the time."""
    after = page.after_key(("int",))
    found, total = await outbox.page(status, page.fetch, page.offset, after[0] if after else None)
    items, next_cursor = page.window(found, lambda item: (item.id,))
    data = [NotificationItem.model_validate(item) for item in items]
    return build_page(data, total, page, request, next_cursor)


@router.post(
    "/admin/notifications/retry",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=BulkRetried,
    responses=errors(400, 401, 403),
)
async def retry_notifications(body: BulkRetry, _admin: AdminUser, outbox: OutboxRepo) -> BulkRetried:
    """Retry every failed notification at once (after a provider's outage), or only those of one `kind`
    (e.g. `email.claim_message`): each gets a fresh series of attempts, starting now. 202 with how many;
    the worker delivers them in the background."""
    return BulkRetried(count=await outbox.retry_failed(body.kind))


@router.post(
    "/admin/notifications/{id}/retry",
    response_model=NotificationItem,
    responses=errors(401, 403, 404, 409),
)
async def retry_notification(
    id: Annotated[int, Path(description="The notification's id."), DIGITS_ONLY],
    _admin: AdminUser,
    outbox: OutboxRepo,
) -> OutboxItem:
    """Give a failed notification a fresh series of attempts, starting now. 409 NOTIFICATION_NOT_FAILED
    for one that is pending or done."""
    return await outbox.retry(id)
