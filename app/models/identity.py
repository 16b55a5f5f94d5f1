"""Sign-in through an identity provider (contract 18): a user's links to provider accounts, and the
one-time codes a single-page app trades for the usual tokens."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.core.types import UtcDateTime
from app.models.base import Base, CreatedAt


class UserIdentity(CreatedAt, Base):
    """A provider's account (its issuer and `sub`) linked to a user: the next sign-in finds the user by it."""

    __tablename__ = "user_identities"
    __table_args__ = (UniqueConstraint("issuer", "subject", name="uq_user_identities_issuer_subject"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    provider: Mapped[str] = mapped_column(String(64))  # the configured name, as `GET /api/me` shows it
    issuer: Mapped[str] = mapped_column(String(255))
    subject: Mapped[str] = mapped_column(String(255))


class OidcLoginCode(CreatedAt, Base):
    """A one-time code handed to the app in the final redirect: stored hashed, spent once, short-lived."""

    __tablename__ = "oidc_login_codes"

    id: Mapped[int] = mapped_column(primary_key=True)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)
    used_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
