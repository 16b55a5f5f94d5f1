"""Who is calling: `CurrentUser` and `AdminUser` for routes; roles come from the database, not the token,
so a role change or a deleted account takes effect on the next request."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.core import request_context
from app.core.deps import SettingsDep
from app.core.security import AccessTokenPayload, decode_access_token
from app.errors import Forbidden, Unauthorized
from app.models import User
from app.users.repository import UserRepo
from app.users.roles import Role

_bearer = HTTPBearer(auto_error=False, description="The access token from POST /api/login.")


def check_credentials(payload: AccessTokenPayload, user: User | None) -> User:
    """The token's user, unless the account is gone or its password changed since the token was issued:
    401 AUTH_TOKEN_INVALID (ids are never reused, so a deleted account's token finds no one)."""
    if user is None or user.credential_version != payload.credential_version:
        raise Unauthorized("The access token is not valid.", code="AUTH_TOKEN_INVALID")
    return user


async def user_for(payload: AccessTokenPayload, users: UserRepo) -> User:
    user = check_credentials(payload, await users.get(payload.user_id))
    request_context.set_user(user.id)  # the request's later log lines name its user
    return user


async def current_token_payload(
    settings: SettingsDep, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> AccessTokenPayload:
    if credentials is None:
        raise Unauthorized("Send an access token: Authorization: Bearer <token>.")
    return decode_access_token(settings, credentials.credentials)


CurrentTokenPayload = Annotated[AccessTokenPayload, Depends(current_token_payload)]


async def current_user(payload: CurrentTokenPayload, users: UserRepo) -> User:
    return await user_for(payload, users)


CurrentUser = Annotated[User, Depends(current_user)]


async def admin_user(user: CurrentUser) -> User:
    if Role.ADMIN not in user.effective_roles:
        raise Forbidden("This needs the ROLE_ADMIN role.")
    return user


AdminUser = Annotated[User, Depends(admin_user)]
