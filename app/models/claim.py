from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.types import StrEnumColumn, UtcDateTime
from app.models.base import Base, CreatedAt, Timestamps
from app.models.enums import ClaimStatus


class Claim(Timestamps, Base):
    __tablename__ = "claims"
    __table_args__ = (
        # At most one claim that is not closed per product, enforced by the database under concurrency.
        Index(
            "uq_claims_one_active_per_product",
            "product_id",
            unique=True,
            sqlite_where=text("status != 'closed'"),
            postgresql_where=text("status != 'closed'"),
        ),
        Index("ix_claims_customer_created", "customer_id", "created_at"),
        Index("ix_claims_supplier_created", "supplier_id", "created_at"),
        # The admin list, newest first, whole or by status (keyset: (created_at, id)).
        Index("ix_claims_created_id", "created_at", "id"),
        Index("ix_claims_status_created_id", "status", "created_at", "id"),
        # An organisation's queue, oldest first (keyset: (created_at, id)), whole or by status.
        Index(
            "ix_claims_organization_created_id",
            "organization_id",
            "created_at",
            "id",
            sqlite_where=text("organization_id IS NOT NULL"),
            postgresql_where=text("organization_id IS NOT NULL"),
        ),
        Index(
            "ix_claims_organization_status_created_id",
            "organization_id",
            "status",
            "created_at",
            "id",
            sqlite_where=text("organization_id IS NOT NULL"),
            postgresql_where=text("organization_id IS NOT NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    product_id: Mapped[int] = mapped_column(ForeignKey("products.id", ondelete="CASCADE"), index=True)
    customer_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    supplier_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    # The supplier organisation the claim is routed to (contract 17.6); its agents share it in their queue.
    organization_id: Mapped[int | None] = mapped_column(ForeignKey("organizations.id", ondelete="SET NULL"))
    status: Mapped[ClaimStatus] = mapped_column(StrEnumColumn(ClaimStatus, 16), default=ClaimStatus.OPEN)
    description: Mapped[str] = mapped_column(Text)
    # The product's name and the description, lower-cased, for the queue's text filter
    # (app/derived/claim_search.py).
    search_text: Mapped[str] = mapped_column(Text, server_default="")
    # How the claim was resolved (repaired, replaced, refunded, rejected); null until then and after a reopen.
    outcome: Mapped[str | None] = mapped_column(String(16))
    outcome_note: Mapped[str | None] = mapped_column(Text)


class Message(CreatedAt, Base):
    __tablename__ = "messages"
    __table_args__ = (
        # Lists and the claim detail read a claim's messages oldest first: (created_at, id) within the claim.
        Index("ix_messages_claim_created_id", "claim_id", "created_at", "id"),
        # The admin list, newest first: all of them, one sender's, or the ones no recipient has read.
        Index("ix_messages_created_id", "created_at", "id"),
        Index("ix_messages_sender_created_id", "sender_id", "created_at", "id"),
        Index(
            "ix_messages_claim_unread_created_id",
            "claim_id",
            "created_at",
            "id",
            sqlite_where=text("recipient_read_at IS NULL"),
            postgresql_where=text("recipient_read_at IS NULL"),
        ),
        Index(
            "ix_messages_unread_created_id",
            "created_at",
            "id",
            sqlite_where=text("recipient_read_at IS NULL"),
            postgresql_where=text("recipient_read_at IS NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"))
    # Null once the sender's account is deleted: the message stays, sent by "Deleted user".
    sender_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    body: Mapped[str] = mapped_column(Text, default="")
    attachment_name: Mapped[str | None] = mapped_column(String(255))
    attachment_mime: Mapped[str | None] = mapped_column(String(100))
    attachment_size: Mapped[int | None] = mapped_column(Integer)
    attachment_key: Mapped[str | None] = mapped_column(String(255))
    # When a recipient (the claim's customer or supplier, other than the sender) first read it; null while
    # none has. Kept by app.derived.read_state, so the admin list's read state and `unread` filter
    # read one column instead of the read rows of every message.
    recipient_read_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class MessageRead(Base):
    """Read state is per user: one row per (message, reader)."""

    __tablename__ = "message_reads"
    __table_args__ = (Index("ix_message_reads_user_id", "user_id"),)

    message_id: Mapped[int] = mapped_column(ForeignKey("messages.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    read_at: Mapped[datetime] = mapped_column(UtcDateTime)
