"""A user's Web Push subscriptions and notification URLs (contract 19), each the user's own."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError

from app.core.clock import utc_now
from app.core.repository import Repository
from app.errors import Conflict, NotFound
from app.models import NotificationTarget, WebPushSubscription
from app.notifications.notify_urls import CheckedUrl, TargetCipher


class WebPushRepository(Repository):
    async def subscribe(
        self, user_id: int, endpoint: str, p256dh: str, auth: str, expires_at: datetime | None, *, keep: int
    ) -> WebPushSubscription:
        """Store a subscription for `user_id`. An endpoint already known (this user's or another's: the
        browser profile is now signed in as the caller) is updated and moved to the caller, never
        duplicated. Beyond `keep` subscriptions, the least recently subscribed go."""
        values = {"user_id": user_id, "p256dh": p256dh, "auth": auth, "expires_at": expires_at}
        existing = await self._id_of(endpoint)
        if existing is None:
            try:
                async with self.session.begin_nested():  # a concurrent one of the same endpoint: an update
                    self.session.add(WebPushSubscription(endpoint=endpoint, **values))
                    await self.session.flush()
            except IntegrityError:
                existing = await self._id_of(endpoint)
        if existing is not None:
            await self.session.execute(
                update(WebPushSubscription)
                .where(WebPushSubscription.id == existing)
                .values(**values, created_at=utc_now())
            )
        await self._keep_newest(user_id, keep)
        row = await self.session.scalar(
            select(WebPushSubscription)
            .where(WebPushSubscription.endpoint == endpoint)
            .execution_options(populate_existing=True)
        )
        assert row is not None
        return row

    async def _id_of(self, endpoint: str) -> int | None:
        found: int | None = await self.session.scalar(
            select(WebPushSubscription.id).where(WebPushSubscription.endpoint == endpoint)
        )
        return found

    async def _keep_newest(self, user_id: int, keep: int) -> None:
        newest = (
            select(WebPushSubscription.id)
            .where(WebPushSubscription.user_id == user_id)
            .order_by(WebPushSubscription.created_at.desc(), WebPushSubscription.id.desc())
            .limit(keep)
        )
        await self.session.execute(
            delete(WebPushSubscription).where(
                WebPushSubscription.user_id == user_id,
                WebPushSubscription.id.not_in(newest.scalar_subquery()),
            )
        )

    async def list_for(self, user_id: int) -> list[WebPushSubscription]:
        statement = (
            select(WebPushSubscription)
            .where(WebPushSubscription.user_id == user_id)
            .order_by(WebPushSubscription.id)
        )
        return list(await self.session.scalars(statement))

    async def remove(self, user_id: int, subscription_id: int) -> None:
        """Delete the caller's subscription; someone else's (or an unknown one) is 404."""
        result = await self.session.execute(
            delete(WebPushSubscription).where(
                WebPushSubscription.user_id == user_id, WebPushSubscription.id == subscription_id
            )
        )
        if result.rowcount != 1:  # type: ignore[attr-defined]
            raise NotFound("No such Web Push subscription.")


class NotificationTargetRepository(Repository):
    async def add(
        self, user_id: int, checked: CheckedUrl, cipher: TargetCipher, *, limit: int
    ) -> NotificationTarget:
        """Store the URL encrypted. The same URL again answers the target it already is; a user at `limit`
        targets gets 409 TOO_MANY_TARGETS (a channel the user set up is never dropped silently)."""
        fingerprint = cipher.fingerprint(checked.url)
        same = await self._by_fingerprint(user_id, fingerprint)
        if same is not None:
            return same
        count = await self.session.scalar(
            select(func.count()).select_from(NotificationTarget).where(NotificationTarget.user_id == user_id)
        )
        if (count or 0) >= limit:
            raise Conflict(
                f"At most {limit} notification URLs per user: delete one first.", code="TOO_MANY_TARGETS"
            )
        target = NotificationTarget(
            user_id=user_id,
            scheme=checked.scheme,
            redacted=checked.redacted[:300],
            secret=cipher.encrypt(checked.url),
            fingerprint=fingerprint,
        )
        try:
            async with self.session.begin_nested():
                self.session.add(target)
                await self.session.flush()
        except IntegrityError:  # the same URL, added at the same moment
            same = await self._by_fingerprint(user_id, fingerprint)
            if same is None:
                raise
            return same
        return target

    async def _by_fingerprint(self, user_id: int, fingerprint: str) -> NotificationTarget | None:
        return await self.session.scalar(
            select(NotificationTarget).where(
                NotificationTarget.user_id == user_id, NotificationTarget.fingerprint == fingerprint
            )
        )

    async def list_for(self, user_id: int) -> list[NotificationTarget]:
        statement = (
            select(NotificationTarget)
            .where(NotificationTarget.user_id == user_id)
            .order_by(NotificationTarget.id)
        )
        return list(await self.session.scalars(statement))

    async def remove(self, user_id: int, target_id: int) -> None:
        result = await self.session.execute(
            delete(NotificationTarget).where(
                NotificationTarget.user_id == user_id, NotificationTarget.id == target_id
            )
        )
        if result.rowcount != 1:  # type: ignore[attr-defined]
            raise NotFound("No such notification URL.")
