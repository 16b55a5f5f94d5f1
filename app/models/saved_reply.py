from __future__ import annotations

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, Timestamps


class SavedReply(Timestamps, Base):
    """A reply an organisation's managers wrote once for its agents to send again (contract 17.9): a title,
    and a body whose placeholders (app.replies.placeholders) were checked when it was saved."""

    __tablename__ = "saved_replies"
    # An organisation's replies in the order they were written (keyset: id).
    __table_args__ = (Index("ix_saved_replies_organization_id_id", "organization_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    organization_id: Mapped[int] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    title: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
