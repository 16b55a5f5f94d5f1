"""Sign-in, token refresh, registration, password change and password reset."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.throttle import Throttle
from app.auth.tokens import RefreshTokenRepository
from app.config import Settings
from app.core.clock import utc_now
from app.core.security import PasswordHasher, create_access_token, hash_token
from app.errors import Forbidden, Unauthorized, ValidationFailed
from app.models import PasswordResetToken, User
from app.models.enums import OutboxKind
from app.outbox.enqueue import enqueue
from app.users import service as users_service
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
    throttle: Throttle,
    users: UserRepository,
    refresh_tokens: RefreshTokenRepository,
) -> SignedIn:
    email = email.strip().lower()
    by_email = (throttle.limits.login_email, f"{email} {client}")
    # Counted as a failure before the password is checked, in a transaction that ends before the hash
    # starts: parallel guesses all count, and on SQLite no write lock is held while hashing.
    async with throttle.counting(by_email, (throttle.limits.login_client, client)) as attempt:
        found = await UserRepository(attempt.session).get_by_email(email)
    # An unknown email is verified against a dummy hash: same work, same answer as a wrong password.
    valid, rehashed = await hasher.verify_and_update(password, found.password_hash if found else None)
    user = await users.get(found.id) if found is not None and valid else None
    if user is None or found is None:
        raise Unauthorized("Wrong email or password.", code="AUTH_INVALID_CREDENTIALS")
    # Signed in: this attempt was no failure, and the email's failures from this address start over.
    await throttle.take_back(users.session, attempt.hit_ids, by_email)
    if rehashed is not None and user.password_hash == found.password_hash:
        user.password_hash = rehashed  # stored with other parameters: now with the configured ones
    return await sign_in(user, settings=settings, refresh_tokens=refresh_tokens)


async def sign_in(user: User, *, settings: Settings, refresh_tokens: RefreshTokenRepository) -> SignedIn:
    refresh_token, family = await refresh_tokens.issue(user.id)
    token = create_access_token(
        settings, user.id, normalize_roles(user.roles), family, user.credential_version
    )
    return SignedIn(user=user, token=token, refresh_token=refresh_token)


async def refresh(
    raw: str, *, settings: Settings, users: UserRepository, refresh_tokens: RefreshTokenRepository
) -> tuple[str, str]:
    user_id, new_refresh, family = await refresh_tokens.rotate(raw)
    user = await users.get(user_id)
    if user is None:
        raise Unauthorized("The refresh token is not valid; sign in again.", code="AUTH_TOKEN_INVALID")
    token = create_access_token(
        settings, user.id, normalize_roles(user.roles), family, user.credential_version
    )
    return token, new_refresh


async def register(
    email: str,
    password: str,
    name: str,
    client: str,
    *,
    settings: Settings,
    hasher: PasswordHasher,
    throttle: Throttle,
    users: UserRepository,
) -> User:
    if not settings.allow_registration:
        raise Forbidden("Registration is closed; ask an administrator for an account.")
    await throttle.hit(throttle.limits.register, client)
    password_hash = await hasher.hash(password)
    return await users_service.create_user(email=email, name=name, password_hash=password_hash, users=users)


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
    user.credential_version += 1  # every access token issued before this one is refused from now on
    await refresh_tokens.revoke_all_for_user(user.id, keep_family=keep_family)


# Password reset. The request only records "send a reset link to this address"; the worker mints the token
# when it sends the email (app.notifications.password_reset).


async def forgot_password(session: AsyncSession, email: str, client: str, *, throttle: Throttle) -> None:
    await throttle.hit(throttle.limits.password_forgot, client)
    enqueue(session, OutboxKind.EMAIL_PASSWORD_RESET, {"email": email.strip().lower()})


async def reset_password(
    raw: str,
    new_password: str,
    *,
    hasher: PasswordHasher,
    users: UserRepository,
    refresh_tokens: RefreshTokenRepository,
) -> None:
    """Spend a reset token: set the password, end every sign-in, void the user's other reset links."""
    session, now = users.session, utc_now()
    token = await session.scalar(
        select(PasswordResetToken).where(PasswordResetToken.token_hash == hash_token(raw))
    )
    if token is None or token.used_at is not None or token.expires_at <= now:
        raise _bad_reset_token()
    # Conditional update: of two concurrent uses of one token, exactly one wins.
    spent = await session.execute(
        update(PasswordResetToken)
        .where(PasswordResetToken.id == token.id, PasswordResetToken.used_at.is_(None))
        .values(used_at=now)
    )
    user = await users.get(token.user_id)
    if spent.rowcount != 1 or user is None:  # type: ignore[attr-defined]
        raise _bad_reset_token()
    user.password_hash = await hasher.hash(new_password)
    user.credential_version += 1
    await session.execute(
        update(PasswordResetToken)
        .where(PasswordResetToken.user_id == user.id, PasswordResetToken.used_at.is_(None))
        .values(used_at=now)
    )
    await refresh_tokens.revoke_all_for_user(user.id)


def _bad_reset_token() -> ValidationFailed:
    return ValidationFailed.field("token", "is not valid: it is unknown, expired or already used")
