"""Refresh tokens: opaque, stored hashed, rotated on every use; reuse of a rotated one revokes its family."""

from __future__ import annotations

import uuid
from datetime import timedelta

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.core.clock import utc_now
from app.core.db import keep_on_error
from app.core.repository import Repository
from app.core.security import hash_token, new_opaque_token
from app.errors import Unauthorized
from app.models import RefreshToken


class RefreshTokenRepository(Repository):
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        super().__init__(session)
        self.ttl = timedelta(days=settings.refresh_token_ttl_days)

    async def issue(self, user_id: int, family: str | None = None) -> tuple[str, str]:
        """A new token (returned in clear once) and its family."""
        raw = new_opaque_token()
        family = family or uuid.uuid4().hex
        self.session.add(
            RefreshToken(
                user_id=user_id, token_hash=hash_token(raw), family=family, expires_at=utc_now() + self.ttl
            )
        )
        await self.session.flush()
        return raw, family

    async def rotate(self, raw: str) -> tuple[int, str, str]:
        """Spend `raw`; answer (user id, new token, family). A spent or revoked token revokes its family."""
        token = await self.session.scalar(
            select(RefreshToken).where(RefreshToken.token_hash == hash_token(raw))
        )
        if token is None:
            raise _invalid()
        if token.revoked_at is not None or token.rotated_at is not None:
            await self.revoke_family(token.family)
            raise _invalid()
        if token.expires_at <= utc_now():
            raise Unauthorized("The refresh token has expired; sign in again.", code="AUTH_TOKEN_EXPIRED")
        # Conditional update: of two concurrent uses of one token, exactly one wins.
        spent = await self.session.execute(
            update(RefreshToken)
            .where(
                RefreshToken.id == token.id,
                RefreshToken.rotated_at.is_(None),
                RefreshToken.revoked_at.is_(None),
            )
            .values(rotated_at=utc_now())
        )
        if spent.rowcount != 1:  # type: ignore[attr-defined]
            await self.revoke_family(token.family)
            raise _invalid()
        new_raw, family = await self.issue(token.user_id, token.family)
        return token.user_id, new_raw, family

    async def revoke(self, raw: str) -> None:
        await self.session.execute(
            update(RefreshToken)
            .where(RefreshToken.token_hash == hash_token(raw), RefreshToken.revoked_at.is_(None))
            .values(revoked_at=utc_now())
        )

    async def revoke_family(self, family: str) -> None:
        # Also when the request then fails: the revocation is the point of detecting reuse.
        keep_on_error(self.session)
        await self.session.execute(
            update(RefreshToken)
            .where(RefreshToken.family == family, RefreshToken.revoked_at.is_(None))
            .values(revoked_at=utc_now())
        )

    async def revoke_all_for_user(self, user_id: int, keep_family: str | None = None) -> None:
        statement = update(RefreshToken).where(
            RefreshToken.user_id == user_id, RefreshToken.revoked_at.is_(None)
        )
        if keep_family:
            statement = statement.where(RefreshToken.family != keep_family)
        await self.session.execute(statement.values(revoked_at=utc_now()))


def _invalid() -> Unauthorized:
    return Unauthorized("The refresh token is not valid; sign in again.", code="AUTH_TOKEN_INVALID")
