from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer
from sqlalchemy.orm import Mapped, mapped_column

from app.core.types import UtcDateTime
from app.models.base import Base


class ClaimDeadline(Base):
    """A routed claim's two deadlines and how it met them (contract 17.8). One row per claim routed to an
    organisation; the `*_minutes` columns are business minutes the clock ran (pauses excluded), written
    when the deadline is met, so that the report's medians are read, not computed, in the database.
    A breach is recorded once: the job sets `*_breached_at` only where it is still null."""

    __tablename__ = "claim_deadlines"
    __table_args__ = (
        # The queue's `sort=due`: an organisation's claims, soonest open deadline first (keyset:
        # (next_due_at, claim_id)).
        Index("ix_claim_deadlines_organization_next_due", "organization_id", "next_due_at", "claim_id"),
        # The breach job's two scans: open deadlines soonest first.
        Index(
            "ix_claim_deadlines_first_response_open",
            "first_response_due_at",
            sqlite_where="first_responded_at IS NULL AND first_response_breached_at IS NULL",
            postgresql_where="first_responded_at IS NULL AND first_response_breached_at IS NULL",
        ),
        Index(
            "ix_claim_deadlines_resolution_open",
            "resolution_due_at",
            sqlite_where="resolved_at IS NULL AND resolution_breached_at IS NULL",
            postgresql_where="resolved_at IS NULL AND resolution_breached_at IS NULL",
        ),
    )

    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"), primary_key=True)
    # When the clocks started: the claim was routed to its organisation (created, or handed on to it).
    # Re-computing the deadlines after a change of the organisation's settings counts from here.
    started_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # The organisation whose deadlines these are (the claim's; the row goes when the claim is handed away
    # or the organisation deleted), and the soonest open deadline: the earlier of the unmet first response
    # and the running resolution, NO_DEADLINE when neither is open. Kept with every write: the queue's
    # `sort=due` reads them down one index.
    organization_id: Mapped[int] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    next_due_at: Mapped[datetime] = mapped_column(UtcDateTime)
    first_response_due_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    first_responded_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    first_response_minutes: Mapped[int | None] = mapped_column(Integer)
    first_response_breached_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # Null while paused (the claim waits for its customer).
    resolution_due_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    resolved_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    resolution_minutes: Mapped[int | None] = mapped_column(Integer)
    resolution_breached_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # Set while the resolution clock is paused; the business minutes it had run before are kept in
    # `resolution_minutes_run` so that the next resume knows what is left.
    paused_since: Mapped[datetime | None] = mapped_column(UtcDateTime)
    resolution_minutes_run: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Since when the resolution clock runs (its start, or its last resume); null while paused or stopped.
    resolution_running_since: Mapped[datetime | None] = mapped_column(UtcDateTime)
