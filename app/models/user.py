from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.types import StrEnumColumn, StrEnumList, UtcDateTime
from app.models.base import Base, CreatedAt, Timestamps
from app.models.enums import Platform, Role

# The name shown where a deleted account was (its messages, its timeline entries, emails and webhooks).
DELETED_USER = "Deleted user"


class User(Timestamps, Base):
    __tablename__ = "users"
    __table_args__ = (Index("ix_users_created_id", "created_at", "id"),)  # the lists, newest first

    id: Mapped[int] = mapped_column(primary_key=True)
    # Stored lower-cased: email matching is case-insensitive.
    email: Mapped[str] = mapped_column(String(255), unique=True)
    name: Mapped[str] = mapped_column(String(255))
    password_hash: Mapped[str] = mapped_column(String(255))
    roles: Mapped[list[Role]] = mapped_column(StrEnumList(Role), default=lambda: [Role.USER])
    street: Mapped[str | None] = mapped_column(String(255))
    postal_code: Mapped[str | None] = mapped_column(String(32))
    city: Mapped[str | None] = mapped_column(String(100))
    country: Mapped[str | None] = mapped_column(String(100))
    notifications_enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    email_notifications_enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    profile_picture: Mapped[str | None] = mapped_column(String(255))
    # Raised by a password change or reset: access tokens carry the value they were issued with, and one
    # carrying an older value is refused (app/access/credentials.py), open hub streams included.
    credential_version: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))

    @property
    def effective_roles(self) -> set[Role]:
        """The role hierarchy: ADMIN > SUPPLIER > USER."""
        roles = set(self.roles) | {Role.USER}
        if Role.ADMIN in roles:
            roles.add(Role.SUPPLIER)
        return roles

    @property
    def is_admin(self) -> bool:
        return Role.ADMIN in self.roles


class RefreshToken(CreatedAt, Base):
    __tablename__ = "refresh_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # Every token issued by rotation from one login shares a family; reuse of a rotated one revokes it all.
    family: Mapped[str] = mapped_column(String(32), index=True)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    rotated_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class PasswordResetToken(CreatedAt, Base):
    __tablename__ = "password_reset_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class DeviceToken(CreatedAt, Base):
    __tablename__ = "device_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    token: Mapped[str] = mapped_column(Text, unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    platform: Mapped[Platform] = mapped_column(StrEnumColumn(Platform, 16))
