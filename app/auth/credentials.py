"""Whether an access token still speaks for its user: roles come from the database, not the token, so a
role change or a deleted account takes effect on the next request."""

from __future__ import annotations

from app.core.security import AccessTokenPayload
from app.errors import Unauthorized
from app.models import User
from app.observability import request_context
from app.users.repository import UserRepository


def check_credentials(payload: AccessTokenPayload, user: User | None) -> User:
    """The token's user, unless the account is gone or its password changed since the token was issued:
    401 AUTH_TOKEN_INVALID (ids are never reused, so a deleted account's token finds no one)."""
    if user is None or user.credential_version != payload.credential_version:
        raise Unauthorized("The access token is not valid.", code="AUTH_TOKEN_INVALID")
    return user


async def user_for(payload: AccessTokenPayload, users: UserRepository) -> User:
    user = check_credentials(payload, await users.get(payload.user_id))
    request_context.set_user(user.id)  # the request's later log lines name its user
    return user
