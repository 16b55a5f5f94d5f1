from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.clock import utc_now
from app.core.types import BigIntPK, StrEnumColumn, UtcDateTime
from app.models.base import Base, CreatedAt
from app.models.enums import OutboxKind, OutboxState


class OutboxItem(CreatedAt, Base):
    """Work that leaves the process (an email, a push), recorded in the transaction that causes it."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_status_next_attempt", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True)
    # A kind no handler knows any more reads back as the plain string (the worker reports it).
    kind: Mapped[str] = mapped_column(StrEnumColumn(OutboxKind, 32, lenient=True))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[OutboxState] = mapped_column(StrEnumColumn(OutboxState, 16), default=OutboxState.PENDING)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utc_now)
    locked_until: Mapped[datetime | None] = mapped_column(UtcDateTime)
    done_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    last_error: Mapped[str | None] = mapped_column(Text)
    # The request that caused it (app.observability.request_context): named in the worker's log lines.
    request_id: Mapped[str | None] = mapped_column(String(64))
