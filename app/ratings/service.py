"""The rules of satisfaction ratings (contract 17.11; docs/api.md, "Ratings and the report"): a claim's
customer rates it once, within 14 days after it last became resolved or closed. Recorded as a change
(app.changes), in the request's transaction."""

from __future__ import annotations

from datetime import datetime, timedelta

from app.changes.dispatch import record
from app.changes.events import ClaimRated
from app.core.clock import utc_now
from app.errors import Conflict, Forbidden
from app.models import Claim, ClaimRating, User
from app.ratings.repository import SETTLED, RatingRepository

RATING_WINDOW = timedelta(days=14)


def already_rated() -> Conflict:
    return Conflict("This claim has been rated already; a claim is rated once.", code="ALREADY_RATED")


def rating_closed(reason: str) -> Conflict:
    return Conflict(reason, code="RATING_CLOSED")


async def _check_window(claim: Claim, ratings: RatingRepository, now: datetime) -> None:
    """409 RATING_CLOSED unless the claim is resolved or closed since at most 14 days (counted from its
    last change to either; a claim with no such change on its timeline counts from its last update)."""
    if claim.status not in SETTLED:
        raise rating_closed("A claim can be rated once it is resolved or closed.")
    settled = await ratings.settled_at(claim.id) or claim.updated_at
    if now > settled + RATING_WINDOW:
        raise rating_closed("A claim can be rated within 14 days after it was resolved or closed.")


async def rate(
    claim: Claim, user: User, score: int, comment: str | None, *, ratings: RatingRepository
) -> ClaimRating:
    """The claim's customer rates it (the caller sees the claim: 404 was decided before). 403 for anyone
    else who sees it, 409 ALREADY_RATED for a second rating, 409 RATING_CLOSED outside the window."""
    if user.id != claim.customer_id:
        raise Forbidden("Only the claim's customer may rate it.")
    if await ratings.of_claim(claim.id) is not None:
        raise already_rated()
    await _check_window(claim, ratings, utc_now())
    rating = await ratings.add(claim.id, user.id, score, comment)
    if rating is None:
        raise already_rated()
    await record(ratings.session, ClaimRated(claim, rating, user))
    return rating
