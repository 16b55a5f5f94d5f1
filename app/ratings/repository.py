"""A claim's rating and when it became resolved or closed: the reads and the one write of satisfaction
ratings (contract 17.11)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.exc import IntegrityError

from app.core.repository import Repository
from app.models import ClaimEvent, ClaimRating
from app.models.enums import ClaimStatus
from app.timeline.record import TimelineKind

SETTLED = (ClaimStatus.RESOLVED.value, ClaimStatus.CLOSED.value)


def moved_to(*statuses: str) -> list[ColumnElement[bool]]:
    """Conditions on claim_events: a status change to one of `statuses` (the timeline's `data.to`)."""
    return [
        ClaimEvent.kind == TimelineKind.STATUS_CHANGED.value,
        ClaimEvent.data["to"].as_string().in_(statuses),
    ]


class RatingRepository(Repository):
    async def of_claim(self, claim_id: int) -> ClaimRating | None:
        return await self.session.get(ClaimRating, claim_id)

    async def settled_at(self, claim_id: int) -> datetime | None:
        """When the claim last became resolved or closed, by its timeline (None: no such change)."""
        statement = select(func.max(ClaimEvent.created_at)).where(
            ClaimEvent.claim_id == claim_id, *moved_to(*SETTLED)
        )
        found: datetime | None = await self.session.scalar(statement)
        return found

    async def add(self, claim_id: int, user_id: int, score: int, comment: str | None) -> ClaimRating | None:
        """The new rating, or None when the claim has one already (read before, or added meanwhile by a
        concurrent request: the key is the claim); nothing changed then."""
        rating = ClaimRating(claim_id=claim_id, user_id=user_id, score=score, comment=comment)
        try:
            async with self.session.begin_nested():
                self.session.add(rating)
                await self.session.flush()
        except IntegrityError:
            return None
        return rating
