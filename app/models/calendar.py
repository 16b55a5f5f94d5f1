from __future__ import annotations

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, CreatedAt


class CalendarFeed(CreatedAt, Base):
    """A user's calendar feed (docs/api.md §12). `secret` is random; the URL's token is an HMAC of it under
    the signing key, so the database alone does not give the URL. `token_hash` (SHA-256 of the token)
    finds the feed of a request. Rotating replaces both."""

    __tablename__ = "calendar_feeds"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    secret: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
