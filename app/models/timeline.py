from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.types import BigIntPK
from app.models.base import Base, CreatedAt


class ClaimEvent(CreatedAt, Base):
    """One entry of a claim's timeline (docs/api.md §14): append-only, written in the transaction of the
    change it records, deleted with the claim. `actor_id` is null for the service's own doings (a
    notification sent) and for a deleted user (then `actor_role` still says who they were)."""

    __tablename__ = "claim_events"
    __table_args__ = (Index("ix_claim_events_claim_id_id", "claim_id", "id"),)

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True)
    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(32))
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    actor_role: Mapped[str] = mapped_column(String(16))
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
