"""The one-time code the final redirect hands the app: random, stored as its hash, valid CODE_TTL seconds,
spent once (a conditional update, so of two racing exchanges exactly one wins)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.clock import utc_now
from app.core.security import hash_token, new_opaque_token
from app.errors import ValidationFailed
from app.models import OidcLoginCode

CODE_TTL = 60
MAX_CODE_LENGTH = 128


async def issue(session: AsyncSession, user_id: int) -> str:
    now = utc_now()
    # Spent and expired codes are of no use to anyone: each issue clears them away.
    await session.execute(delete(OidcLoginCode).where(OidcLoginCode.expires_at < now - timedelta(minutes=5)))
    code = new_opaque_token()
    session.add(
        OidcLoginCode(
            code_hash=hash_token(code), user_id=user_id, expires_at=now + timedelta(seconds=CODE_TTL)
        )
    )
    await session.flush()
    return code


async def spend(session: AsyncSession, code: str) -> int:
    """The user id the code was issued for; 400 on `code` when it is unknown, expired or already used."""
    now = utc_now()
    found = await session.scalar(select(OidcLoginCode).where(OidcLoginCode.code_hash == hash_token(code)))
    if found is None or found.used_at is not None or found.expires_at <= now:
        raise _bad_code()
    spent = await session.execute(
        update(OidcLoginCode)
        .where(OidcLoginCode.id == found.id, OidcLoginCode.used_at.is_(None))
        .values(used_at=now)
    )
    if spent.rowcount != 1:  # type: ignore[attr-defined]
        raise _bad_code()
    return found.user_id


def _bad_code() -> ValidationFailed:
    return ValidationFailed.field("code", "is not valid: it is unknown, expired or already used")
