"""Where a user is notified besides email and phone push (contract 19): browsers' Web Push subscriptions
and notification URLs (Apprise), each the user's own."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.core.types import UtcDateTime
from app.models.base import Base, CreatedAt


class WebPushSubscription(CreatedAt, Base):
    """A browser's `PushSubscription`: its push service endpoint and the keys its payloads are encrypted
    for (RFC 8291). An endpoint is one browser profile's: registering it again moves it to the caller."""

    __tablename__ = "web_push_subscriptions"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    endpoint: Mapped[str] = mapped_column(Text, unique=True)
    p256dh: Mapped[str] = mapped_column(String(100))  # base64url, an uncompressed P-256 point
    auth: Mapped[str] = mapped_column(String(32))  # base64url, 16 bytes
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime)  # the browser's expirationTime


class NotificationTarget(CreatedAt, Base):
    """A notification URL (Apprise). The URL holds the credentials of the user's channel: it is kept
    encrypted (`secret`), shown only as `redacted`; `fingerprint` (an HMAC of the URL) finds the same URL
    added twice."""

    __tablename__ = "notification_targets"
    __table_args__ = (UniqueConstraint("user_id", "fingerprint"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    scheme: Mapped[str] = mapped_column(String(16))
    redacted: Mapped[str] = mapped_column(String(300))
    secret: Mapped[str] = mapped_column(Text)
    fingerprint: Mapped[str] = mapped_column(String(64))
