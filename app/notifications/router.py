"""Device tokens, Web Push subscriptions and notification URLs (each user's own, contract 7 and 19), the
VAPID public key, and the admin view of the notification outbox."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Path, Query, Request, Response, status

from app.api.dependencies import AdminUser, CurrentUser, Pagination, SettingsDep
from app.api.openapi import errors
from app.api.pagination import Page, build_page
from app.core import addresses
from app.core.ids import DIGITS_ONLY, MAX_BIGINT_ID
from app.errors import ValidationFailed
from app.models import DeviceToken, NotificationTarget, OutboxItem, WebPushSubscription
from app.models.enums import OutboxStateName, Platform
from app.notifications import notify_urls
from app.notifications.dependencies import DeviceTokenRepo, OutboxRepo, TargetRepo, WebPushRepo
from app.notifications.schemas import (
    BulkRetried,
    BulkRetry,
    DeviceTokenIn,
    DeviceTokenOut,
    NotificationItem,
    NotificationTargetIn,
    NotificationTargetOut,
    WebPushKeyOut,
    WebPushSubscriptionIn,
    WebPushSubscriptionOut,
)
from app.notifications.vapid import vapid_key

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


# Notifications where users are (contract 19)

SubscriptionId = Annotated[
    int, Path(ge=1, le=MAX_BIGINT_ID, description="The subscription's id."), DIGITS_ONLY
]
TargetId = Annotated[int, Path(ge=1, le=MAX_BIGINT_ID, description="The notification URL's id."), DIGITS_ONLY]


@router.get("/push/web/key", response_model=WebPushKeyOut)
async def web_push_key(settings: SettingsDep) -> WebPushKeyOut:
    """The VAPID application server key (RFC 8292) browsers subscribe with. Public: no sign-in needed."""
    return WebPushKeyOut(public_key=vapid_key(settings).public_key)


async def _checked_endpoint(endpoint: str, allow_private: bool) -> str:
    try:
        url = addresses.parse(endpoint)
        if url.scheme != "https" and not allow_private:
            raise addresses.Refused("must be an https URL")
        await addresses.check(endpoint, allow_private)
    except addresses.Refused as exc:
        raise ValidationFailed.field("endpoint", str(exc)) from None
    return endpoint


@router.post(
    "/me/web-push-subscriptions",
    status_code=status.HTTP_201_CREATED,
    response_model=WebPushSubscriptionOut,
    responses=errors(400, 401),
)
async def subscribe_web_push(
    body: WebPushSubscriptionIn,
    user: CurrentUser,
    subscriptions: WebPushRepo,
    settings: SettingsDep,
    response: Response,
) -> WebPushSubscription:
    """Register a browser's `PushSubscription` (as `toJSON()` gives it) for Web Push. The endpoint must be
    https and resolve to public addresses. The same endpoint again updates it (and moves it to the caller)
    rather than adding another. A user keeps at most `WARRANTY_MAX_WEB_PUSH_SUBSCRIPTIONS_PER_USER` (20):
    beyond, the oldest is dropped."""
    endpoint = await _checked_endpoint(body.endpoint, settings.webhook_allow_private)
    expires_at = (
        datetime.fromtimestamp(body.expiration_time / 1000, UTC) if body.expiration_time is not None else None
    )
    row = await subscriptions.subscribe(
        user.id,
        endpoint,
        body.keys.p256dh,
        body.keys.auth,
        expires_at,
        keep=settings.max_web_push_subscriptions_per_user,
    )
    response.headers["Location"] = f"/api/me/web-push-subscriptions/{row.id}"
    return row


@router.get("/me/web-push-subscriptions", response_model=list[WebPushSubscriptionOut], responses=errors(401))
async def list_web_push_subscriptions(
    user: CurrentUser, subscriptions: WebPushRepo
) -> list[WebPushSubscription]:
    """The caller's Web Push subscriptions, oldest first."""
    return await subscriptions.list_for(user.id)


@router.delete(
    "/me/web-push-subscriptions/{id}", status_code=status.HTTP_204_NO_CONTENT, responses=errors(401, 404)
)
async def delete_web_push_subscription(
    id: SubscriptionId, user: CurrentUser, subscriptions: WebPushRepo
) -> None:
    """Stop pushing to that browser. Only the caller's own; others are 404."""
    await subscriptions.remove(user.id, id)


@router.post(
    "/me/notification-targets",
    status_code=status.HTTP_201_CREATED,
    response_model=NotificationTargetOut,
    responses=errors(400, 401, 409),
)
async def add_notification_target(
    body: NotificationTargetIn,
    user: CurrentUser,
    targets: TargetRepo,
    settings: SettingsDep,
    response: Response,
) -> NotificationTarget:
    """Add a notification URL (Apprise: ntfy, Gotify, Matrix, Telegram, Slack, Discord, ... as
    `WARRANTY_NOTIFY_SCHEMES` allows). A scheme not allowed, a URL Apprise does not understand, or a
    self-hosted service whose host resolves to a private address is a 400 on `url`. Kept encrypted and
    never shown again in full. The same URL again answers the one there is; beyond
    `WARRANTY_MAX_NOTIFICATION_TARGETS_PER_USER` (10), 409 TOO_MANY_TARGETS."""
    try:
        checked = await notify_urls.checked(body.url, settings)
    except notify_urls.Unusable as exc:
        raise ValidationFailed.field("url", str(exc)) from None
    target = await targets.add(
        user.id,
        checked,
        notify_urls.target_cipher(settings),
        limit=settings.max_notification_targets_per_user,
    )
    response.headers["Location"] = f"/api/me/notification-targets/{target.id}"
    return target


@router.get("/me/notification-targets", response_model=list[NotificationTargetOut], responses=errors(401))
async def list_notification_targets(user: CurrentUser, targets: TargetRepo) -> list[NotificationTarget]:
    """The caller's notification URLs, redacted, oldest first."""
    return await targets.list_for(user.id)


@router.delete(
    "/me/notification-targets/{id}", status_code=status.HTTP_204_NO_CONTENT, responses=errors(401, 404)
)
async def delete_notification_target(id: TargetId, user: CurrentUser, targets: TargetRepo) -> None:
    """Stop notifying that URL. Only the caller's own; others are 404."""
    await targets.remove(user.id, id)
