from __future__ import annotations

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.types import BigIntPK
from app.models.base import Base, CreatedAt


class InboundDelivery(CreatedAt, Base):
    """A key seen on an inbound email (webhook id, provider email id, Message-ID). The unique key makes a
    redelivery, even a concurrent one, a duplicate."""

    __tablename__ = "inbound_deliveries"
    __table_args__ = (Index("ix_inbound_deliveries_created_at", "created_at"),)

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True)
    key: Mapped[str] = mapped_column(String(512), unique=True)
    message_id: Mapped[int | None] = mapped_column(ForeignKey("messages.id", ondelete="SET NULL"))
