"""Sign-in, token refresh, registration and password change."""

from __future__ import annotations

from dataclasses import dataclass

from app.auth.throttle import LoginThrottle
from app.auth.tokens import RefreshTokenRepository
from app.config import Settings
from app.core.db import keep_on_error
from app.core.security import PasswordHasher, create_access_token
from app.errors import Forbidden, Unauthorized, ValidationFailed
from app.models import User
from app.users.repository import UserRepository, normalize_roles


@dataclass
class SignedIn:
    user: User
    token: str
    refresh_token: str


async def login(
    email: str,
    password: str,
    client: str,
    *,
    settings: Settings,
    hasher: PasswordHasher,
    users: UserRepository,
    refresh_tokens: RefreshTokenRepository,
) -> SignedIn:
    email = email.strip().lower()
    throttle = LoginThrottle(users.session, settings)
    await throttle.check(email, client)
    user = await users.get_by_email(email)
    # An unknown email is verified against a dummy hash: same work, same answer as a wrong password.
    valid = await hasher.verify(password, user.password_hash if user else None)
    if user is None or not valid:
        throttle.record_failure(email, client)
        keep_on_error(users.session)
        raise Unauthorized("Wrong email or password.", code="AUTH_INVALID_CREDENTIALS")
    await throttle.clear(email, client)
    return await sign_in(user, settings=settings, refresh_tokens=refresh_tokens)


async def sign_in(user: User, *, settings: Settings, refresh_tokens: RefreshTokenRepository) -> SignedIn:
    refresh_token, family = await refresh_tokens.issue(user.id)
    token = create_access_token(settings, user.id, normalize_roles(user.roles), family)
    return SignedIn(user=user, token=token, refresh_token=refresh_token)


async def refresh(
    raw: str, *, settings: Settings, users: UserRepository, refresh_tokens: RefreshTokenRepository
) -> tuple[str, str]:
    user_id, new_refresh, family = await refresh_tokens.rotate(raw)
    user = await users.get(user_id)
    if user is None:
        raise Unauthorized("The refresh token is not valid; sign in again.", code="AUTH_TOKEN_INVALID")
    return create_access_token(settings, user.id, normalize_roles(user.roles), family), new_refresh


async def register(
    email: str, password: str, name: str, *, settings: Settings, hasher: PasswordHasher, users: UserRepository
) -> User:
    if not settings.allow_registration:
        raise Forbidden("Registration is closed; ask an administrator for an account.")
    return await users.add(email=email, name=name, password_hash=await hasher.hash(password))


async def change_password(
    user: User,
    current_password: str,
    new_password: str,
    keep_family: str | None,
    *,
    hasher: PasswordHasher,
    refresh_tokens: RefreshTokenRepository,
) -> None:
    if not await hasher.verify(current_password, user.password_hash):
        # A 400, not a 401: the caller is signed in, only this field is wrong.
        raise ValidationFailed.field("currentPassword", "is not the current password")
    user.password_hash = await hasher.hash(new_password)
    await refresh_tokens.revoke_all_for_user(user.id, keep_family=keep_family)
