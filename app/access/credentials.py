"""Whether an access token still speaks for its user: roles come from the database, not the token, so a
role change or a deleted account takes effect on the next request."""

from __future__ import annotations

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.driver_reads import DriverRead
from app.core.security import AccessTokenPayload
from app.errors import Unauthorized
from app.models import User
from app.observability import request_context

# Every authenticated request loads its caller: on the driver's connection (app.core.driver_reads).
_USER_BY_ID = DriverRead(select(User).where(User.id == bindparam("user_id")), User)


async def user_by_id(session: AsyncSession, user_id: int) -> User | None:
    """The user with this id, or None (the identity map answers first, as `session.get` does)."""
    return await _USER_BY_ID.get(session, user_id, user_id=user_id)


def check_credentials(payload: AccessTokenPayload, user: User | None) -> User:
    """The token's user, unless the account is gone or its password changed since the token was issued:
    401 AUTH_TOKEN_INVALID (ids are never reused, so a deleted account's token finds no one)."""
    if user is None or user.credential_version != payload.credential_version:
        raise Unauthorized("The access token is not valid.", code="AUTH_TOKEN_INVALID")
    return user


async def user_for(payload: AccessTokenPayload, session: AsyncSession) -> User:
    user = check_credentials(payload, await user_by_id(session, payload.user_id))
    request_context.set_user(user.id)  # the request's later log lines name its user
    return user
