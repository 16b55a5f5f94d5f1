"""Device tokens (per user)."""

from __future__ import annotations

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from app.core.clock import utc_now
from app.core.repository import Repository
from app.errors import NotFound
from app.models import DeviceToken
from app.models.enums import Platform


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
