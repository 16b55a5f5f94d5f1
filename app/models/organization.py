from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.types import StrEnumColumn, UtcDateTime
from app.models.base import Base, Timestamps
from app.models.enums import OrganizationRole


class Organization(Timestamps, Base):
    """A supplier company whose agents share a queue of claims (docs/api.md, "Households and
    organisations"): admins create it; its brands route new claims to it."""

    __tablename__ = "organizations"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    # Told of claims while none of its agents is assigned (contract 17.7); optional.
    email: Mapped[str | None] = mapped_column(String(255))
    # Deadlines (contract 17.8), counted inside the business hours when there are some:
    # {"timezone": IANA name, "days": [1..7], "start": "HH:MM", "end": "HH:MM"}.
    first_response_minutes: Mapped[int] = mapped_column(Integer, default=1440, server_default="1440")
    resolution_minutes: Mapped[int] = mapped_column(Integer, default=7200, server_default="7200")
    business_hours: Mapped[dict[str, object] | None] = mapped_column(JSON)


class OrganizationBrand(Base):
    """A brand an organisation handles. `key` is the brand trimmed and lower-cased: a brand belongs to at
    most one organisation, whatever its case."""

    __tablename__ = "organization_brands"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    organization_id: Mapped[int] = mapped_column(
        ForeignKey("organizations.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(100))  # as the admin wrote it


class OrganizationMember(Base):
    """A ROLE_SUPPLIER user in their one organisation, as its manager or agent."""

    __tablename__ = "organization_members"
    __table_args__ = (Index("ix_organization_members_organization_user", "organization_id", "user_id"),)

    # A user belongs to at most one organisation: the user is the key.
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    organization_id: Mapped[int] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    role: Mapped[OrganizationRole] = mapped_column(StrEnumColumn(OrganizationRole, 16))
    joined_at: Mapped[datetime] = mapped_column(UtcDateTime)
