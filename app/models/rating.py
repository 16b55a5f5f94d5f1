from __future__ import annotations

from sqlalchemy import CheckConstraint, ForeignKey, Index, Integer, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, CreatedAt


class ClaimRating(CreatedAt, Base):
    """A customer's satisfaction with a resolved claim (contract 17.11): one per claim, the key decides
    (a second rating, however concurrent, is refused by it), deleted with the claim. `user_id` is the
    customer who rated it."""

    __tablename__ = "claim_ratings"
    __table_args__ = (
        CheckConstraint("score BETWEEN 1 AND 5", name="score_range"),
        # The organisation report: the ratings given in a period.
        Index("ix_claim_ratings_created_at", "created_at"),
    )

    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    score: Mapped[int] = mapped_column(Integer)
    comment: Mapped[str | None] = mapped_column(Text)
