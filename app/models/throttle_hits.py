from __future__ import annotations

from sqlalchemy import Index, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.types import BigIntPK
from app.models.base import Base, CreatedAt


class ThrottleHit(CreatedAt, Base):
    """One counted request (a sign-in attempt, a reset request, a registration), by throttle and key;
    counted over a sliding window (app/auth/throttle.py)."""

    __tablename__ = "throttle_hits"
    __table_args__ = (
        Index("ix_throttle_hits_bucket_key_created", "bucket", "key", "created_at"),
        Index("ix_throttle_hits_bucket_created", "bucket", "created_at"),  # pruning a bucket's old hits
    )

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True)
    bucket: Mapped[str] = mapped_column(String(32))
    key: Mapped[str] = mapped_column(String(320))  # an email (254 at most) and a client address
