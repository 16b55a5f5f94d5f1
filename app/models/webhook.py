from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.types import BigIntPK, UtcDateTime
from app.models.base import Base, CreatedAt, Timestamps


class WebhookEndpoint(Timestamps, Base):
    """An integrator's receiver of outbound webhooks: where to post which event types, and the secret they
    are signed with (kept in clear: every send needs it; the API shows it once, at registration)."""

    __tablename__ = "webhook_endpoints"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True)
    url: Mapped[str] = mapped_column(String(2048))
    events: Mapped[list[str]] = mapped_column(JSON)
    description: Mapped[str | None] = mapped_column(String(500))
    secret: Mapped[str] = mapped_column(String(100))


class WebhookDelivery(CreatedAt, Base):
    """One event for one endpoint: the exact body signed on every attempt, its `webhook-id`, and what the
    last attempt saw. Whether it is still pending or failed for good is its outbox row's state."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (Index("ix_webhook_deliveries_endpoint_id_id", "endpoint_id", "id"),)

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True)
    endpoint_id: Mapped[int] = mapped_column(ForeignKey("webhook_endpoints.id", ondelete="CASCADE"))
    message_id: Mapped[str] = mapped_column(String(64), unique=True)
    event_type: Mapped[str] = mapped_column(String(64))
    body: Mapped[str] = mapped_column(Text)
    # No foreign key: delivered outbox rows are pruned after a while, the delivery stays.
    outbox_id: Mapped[int | None] = mapped_column(BigInteger().with_variant(Integer(), "sqlite"))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_attempt_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    response_status: Mapped[int | None] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(Text)
    delivered_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
