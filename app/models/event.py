from __future__ import annotations

from sqlalchemy import Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.types import BigIntPK
from app.models.base import Base, CreatedAt


class Event(CreatedAt, Base):
    """A real-time event: written in the change's transaction; the hub's replay history and, on
    PostgreSQL, the source other processes read after a NOTIFY carrying the id.

    An update published through the hub (contract 20, app.realtime.updates) is an event too: its `topic`
    is the publisher's topic under the `update:` prefix (so no publisher can write to a topic of the
    service's own), and `update_id` is the id subscribers see, the publisher's or a generated one; the
    row's `id` still gives its place in commit order."""

    __tablename__ = "events"
    __table_args__ = (
        Index("ix_events_topic_id", "topic", "id"),
        Index("ix_events_created_at", "created_at"),
        Index("ix_events_update_id", "update_id", unique=True),
    )

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True)
    topic: Mapped[str] = mapped_column(String(255))
    payload: Mapped[str] = mapped_column(Text)  # serialized once, sent as is to every subscriber
    update_id: Mapped[str | None] = mapped_column(String(255), default=None)  # published updates only
