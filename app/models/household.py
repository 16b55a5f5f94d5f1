from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.types import StrEnumColumn, UtcDateTime
from app.models.base import Base, CreatedAt, Timestamps
from app.models.enums import HouseholdRole


class Household(Timestamps, Base):
    """People who share the things they bought (docs/api.md, "Households and organisations")."""

    __tablename__ = "households"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))


class HouseholdMember(Base):
    """One user in one household, with their role there. A household keeps at least one owner."""

    __tablename__ = "household_members"
    # A user's households (their list, and every access check that walks from a user to shared products).
    __table_args__ = (Index("ix_household_members_user_household", "user_id", "household_id"),)

    household_id: Mapped[int] = mapped_column(
        ForeignKey("households.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    role: Mapped[HouseholdRole] = mapped_column(StrEnumColumn(HouseholdRole, 16))
    joined_at: Mapped[datetime] = mapped_column(UtcDateTime)


class HouseholdInvitation(CreatedAt, Base):
    """An invitation by email: the token is sent once and stored only as its hash; accepting deletes it."""

    __tablename__ = "household_invitations"

    id: Mapped[int] = mapped_column(primary_key=True)
    household_id: Mapped[int] = mapped_column(ForeignKey("households.id", ondelete="CASCADE"), index=True)
    # Stored lower-cased, as account emails are: accepting compares the two.
    email: Mapped[str] = mapped_column(String(255))
    role: Mapped[HouseholdRole] = mapped_column(StrEnumColumn(HouseholdRole, 16))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    invited_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)


class ClaimMute(Base):
    """A customer-side participant's own choice for one claim's notifications; without a row, members and
    owners hear and viewers do not (contract 17.4)."""

    __tablename__ = "claim_mutes"

    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    muted: Mapped[bool] = mapped_column(Boolean)
