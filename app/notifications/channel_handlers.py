"""The outbox handlers of Web Push (`webpush.*`) and notification URLs (`apprise.*`), contract 19: one row
per (event, subscription) or (event, URL). Each loads what it needs by id (a short session of its own),
composes the notice as the phone push is composed (so the same recipient checks and settings apply: a
recipient who left the claim, muted it or turned notifications off gets nothing), then sends outside any
transaction. A subscription or URL deleted since is skipped; one the push service says is gone (404, 410)
is deleted."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.models import NotificationTarget, WebPushSubscription
from app.models.enums import OutboxKind
from app.notifications import compose, expiry_notices, notify_urls, web_push
from app.notifications.push import PushNotification
from app.notifications.vapid import vapid_key, vapid_subject
from app.outbox.handlers import Handler, PermanentFailure, Skipped

PushComposer = Callable[[AsyncSession, dict[str, Any]], Awaitable[tuple[int, PushNotification] | None]]

HIGH_URGENCY = frozenset({"new_message"})  # a message is worth waking a device for; the rest is normal


def web_notice(notification: PushNotification, settings: Settings) -> web_push.WebPush:
    """The Web Push payload `{type, claimId, title, body, url}` (and `productId` for an expiry alert), its
    `Topic` (one per claim or product) and `Urgency`."""
    kind = notification.data.get("type", "notification")
    claim_id = notification.data.get("claimId")
    product_id = notification.data.get("productId")
    frontend = settings.frontend_url.rstrip("/")
    payload: dict[str, Any] = {
        "type": kind,
        "claimId": int(claim_id) if claim_id else None,
        "title": notification.title,
        "body": notification.message,
        "url": f"{frontend}/claims/{claim_id}" if claim_id else f"{frontend}/products/{product_id}",
    }
    if product_id:
        payload["productId"] = int(product_id)
    urgency: web_push.Urgency = "high" if kind in HIGH_URGENCY else "normal"
    return web_push.WebPush(payload, notification.thread or kind.replace("_", "-"), urgency)


class ChannelDelivery:
    def __init__(self, settings: Settings, sessionmaker: async_sessionmaker[AsyncSession]) -> None:
        self.settings = settings
        self.sessionmaker = sessionmaker

    def handlers(self) -> dict[str, Handler]:
        composers: list[tuple[OutboxKind, OutboxKind, PushComposer]] = [
            (OutboxKind.WEBPUSH_CLAIM_MESSAGE, OutboxKind.APPRISE_CLAIM_MESSAGE, compose.message_push),
            (OutboxKind.WEBPUSH_CLAIM_STATUS, OutboxKind.APPRISE_CLAIM_STATUS, compose.status_push),
            (OutboxKind.WEBPUSH_EXPIRY_ALERT, OutboxKind.APPRISE_EXPIRY_ALERT, expiry_notices.expiry_push),
        ]
        handlers: dict[str, Handler] = {}
        for web_kind, url_kind, composer in composers:
            handlers[web_kind] = self._web_push(composer)
            handlers[url_kind] = self._notify_url(composer)
        return handlers

    def _web_push(self, composer: PushComposer) -> Handler:
        async def handle(payload: dict[str, Any]) -> None:
            async with self.sessionmaker() as session:
                found = await composer(session, payload)
                if found is None:
                    return
                row = await session.get(WebPushSubscription, int(payload["subscriptionId"]))
            if row is None or row.user_id != found[0]:
                raise Skipped("the Web Push subscription was removed")
            subscription = web_push.Subscription(row.endpoint, row.p256dh, row.auth)
            try:
                await web_push.send(
                    web_notice(found[1], self.settings),
                    subscription,
                    key=vapid_key(self.settings),
                    subject=vapid_subject(self.settings),
                    ttl=self.settings.web_push_ttl,
                    allow_private=self.settings.webhook_allow_private,
                    seconds=self.settings.web_push_timeout,
                )
            except web_push.SubscriptionGone as exc:
                await self._forget(row.id, row.endpoint)
                raise Skipped(str(exc)) from None

        return handle

    async def _forget(self, subscription_id: int, endpoint: str) -> None:
        async with self.sessionmaker() as session, session.begin():
            await session.execute(
                delete(WebPushSubscription).where(
                    WebPushSubscription.id == subscription_id, WebPushSubscription.endpoint == endpoint
                )
            )

    def _notify_url(self, composer: PushComposer) -> Handler:
        async def handle(payload: dict[str, Any]) -> None:
            async with self.sessionmaker() as session:
                found = await composer(session, payload)
                if found is None:
                    return
                row = await session.get(NotificationTarget, int(payload["targetId"]))
            if row is None or row.user_id != found[0]:
                raise Skipped("the notification URL was removed")
            url = notify_urls.target_cipher(self.settings).decrypt(row.secret)
            if url is None:
                raise PermanentFailure("no key of WARRANTY_NOTIFY_KEY decrypts this notification URL")
            notice = web_notice(found[1], self.settings)
            body = f"{notice.payload['body']}\n\n{notice.payload['url']}"
            try:
                await notify_urls.send(url, str(notice.payload["title"]), body, self.settings)
            except notify_urls.Unusable as exc:
                raise PermanentFailure(f"{row.redacted}: {exc}") from None

        return handle
