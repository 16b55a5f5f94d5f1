"""Device tokens (per user) and the outbox as an admin sees it."""

from __future__ import annotations

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError

from app.core.clock import utc_now
from app.core.ids import MAX_BIGINT_ID
from app.core.repository import Repository
from app.errors import Conflict, NotFound
from app.models import DeviceToken, OutboxItem
from app.models.enums import OutboxState, Platform
from app.notifications.outbox import wake_worker


class DeviceTokenRepository(Repository):
    async def register(
        self, user_id: int, token: str, platform: Platform, *, max_per_user: int
    ) -> DeviceToken:
        """Register `token` for `user_id`; a token already known (maybe another user's: the device changed
        hands) moves to this user. Beyond `max_per_user` tokens, the least recently registered go."""
        existing = await self._get(token)
        if existing is None:
            try:
                # A savepoint: a concurrent registration of the same token turns into a move, not a 500.
                async with self.session.begin_nested():
                    self.session.add(DeviceToken(token=token, user_id=user_id, platform=platform))
                    await self.session.flush()
            except IntegrityError:
                existing = await self._get(token)
        if existing is not None:
            await self.session.execute(
                update(DeviceToken)
                .where(DeviceToken.id == existing.id)
                .values(user_id=user_id, platform=platform, created_at=utc_now())
            )
        await self._keep_newest(user_id, max_per_user)
        row = await self._get(token)
        assert row is not None
        await self.session.refresh(row)
        return row

    async def _keep_newest(self, user_id: int, keep: int) -> None:
        newest = (
            select(DeviceToken.id)
            .where(DeviceToken.user_id == user_id)
            .order_by(DeviceToken.created_at.desc(), DeviceToken.id.desc())
            .limit(keep)
        )
        await self.session.execute(
            delete(DeviceToken).where(
                DeviceToken.user_id == user_id, DeviceToken.id.not_in(newest.scalar_subquery())
            )
        )

    async def _get(self, token: str) -> DeviceToken | None:
        return await self.session.scalar(select(DeviceToken).where(DeviceToken.token == token))

    async def list_for(self, user_id: int) -> list[DeviceToken]:
        statement = select(DeviceToken).where(DeviceToken.user_id == user_id).order_by(DeviceToken.id)
        return list(await self.session.scalars(statement))

    async def remove(self, user_id: int, token: str) -> None:
        """Delete the caller's token; someone else's (or an unknown one) is 404."""
        result = await self.session.execute(
            delete(DeviceToken).where(DeviceToken.user_id == user_id, DeviceToken.token == token)
        )
        if result.rowcount != 1:  # type: ignore[attr-defined]
            raise NotFound("No such device token.")


class OutboxRepository(Repository):
    async def page(
        self, status: str | None, limit: int, offset: int, after_id: int | None = None
    ) -> tuple[list[OutboxItem], int]:
        """Newest first; `after_id`: the rows after that one (a cursor's key)."""
        query = select(OutboxItem)
        count = select(func.count()).select_from(OutboxItem)
        if status is not None:
            query, count = query.where(OutboxItem.status == status), count.where(OutboxItem.status == status)
        total = int(await self.session.scalar(count) or 0)
        if after_id is not None:
            query = query.where(OutboxItem.id < after_id)
        rows = await self.session.scalars(query.order_by(OutboxItem.id.desc()).limit(limit).offset(offset))
        return list(rows), total

    async def retry(self, item_id: int) -> OutboxItem:
        """Put a failed row back to pending, attempts reset, due now. Pending rows are left to the worker
        (one may be mid-delivery) and done rows were delivered: both 409 NOTIFICATION_NOT_FAILED."""
        # An id past the column's range names no row; asking the database would overflow its integer.
        item = await self.session.get(OutboxItem, item_id) if 1 <= item_id <= MAX_BIGINT_ID else None
        if item is None:
            raise NotFound("No such notification.")
        if item.status != OutboxState.FAILED:
            raise Conflict(
                f"Only failed notifications can be retried; this one is {item.status}.",
                code="NOTIFICATION_NOT_FAILED",
            )
        item.status, item.attempts, item.next_attempt_at = OutboxState.PENDING, 0, utc_now()
        item.locked_until = None
        await self.session.flush()
        self._wake_worker()
        return item

    async def retry_failed(self, kind: str | None) -> int:
        """Put every failed row (of `kind`, when given) back to pending, attempts reset, due now; answers
        how many. One statement, whatever their number."""
        statement = (
            update(OutboxItem)
            .where(OutboxItem.status == OutboxState.FAILED)
            .values(status=OutboxState.PENDING, attempts=0, next_attempt_at=utc_now(), locked_until=None)
            .execution_options(synchronize_session=False)
        )
        if kind is not None:
            statement = statement.where(OutboxItem.kind == kind)
        result = await self.session.execute(statement)
        count = int(getattr(result, "rowcount", 0) or 0)
        if count:
            self._wake_worker()
        return count

    def _wake_worker(self) -> None:
        wake_worker(self.session)
