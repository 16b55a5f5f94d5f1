"""Password-reset emails. `POST /api/password/forgot` only records "send a reset link to this address"
(the same work whether or not the address has an account: no enumeration, by answer or by timing); the
worker looks the account up and mints the token when it sends the email, so the raw token is never stored,
not even in the outbox. app.auth spends the token (`reset_password`); it enqueues, this package sends."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.core.clock import utc_now
from app.core.security import hash_token, new_opaque_token
from app.models import PasswordResetToken, User
from app.notifications.email import Email
from app.notifications.render import render

RESET_EMAIL_INTERVAL = timedelta(minutes=1)


async def issue_reset_token(session: AsyncSession, user_id: int, settings: Settings) -> str | None:
    """A new single-use reset token for `user_id` (returned in clear once; stored hashed). None when one
    was issued less than RESET_EMAIL_INTERVAL ago: a flood of requests sends at most one email a minute."""
    now = utc_now()
    # Lock the user row: concurrent sends for one user (PostgreSQL) take turns at the check below.
    await session.execute(select(User.id).where(User.id == user_id).with_for_update())
    latest = await session.scalar(
        select(func.max(PasswordResetToken.created_at)).where(PasswordResetToken.user_id == user_id)
    )
    if latest is not None and latest > now - RESET_EMAIL_INTERVAL:
        return None
    raw = new_opaque_token()
    expires_at = now + timedelta(seconds=settings.password_reset_ttl)
    session.add(PasswordResetToken(user_id=user_id, token_hash=hash_token(raw), expires_at=expires_at))
    await session.flush()
    return raw


def reset_email(user: User, raw_token: str, settings: Settings) -> Email:
    subject = "Reset your Warranty password"
    minutes = max(1, settings.password_reset_ttl // 60)
    valid_for = f"{minutes // 60} hour(s)" if minutes % 60 == 0 else f"{minutes} minutes"
    link = f"{settings.frontend_url.rstrip('/')}/reset-password?token={raw_token}"
    text, html = render("password_reset", subject, name=user.name, link=link, valid_for=valid_for)
    return Email(user.email, subject, text, html)
