"""Satisfaction ratings and the organisation report (contract 17.11; docs/api.md, "Ratings and the
report"): a claim's customer rates it once after its resolution; an organisation's managers and admins
read its figures for a period."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response, status

from app.access.organizations import not_found as organization_not_found
from app.access.organizations import require_member
from app.api.dependencies import CurrentUser, SessionDep, VisibleClaimById
from app.api.openapi import errors
from app.core.ids import DIGITS_ONLY, MAX_ID
from app.models import Organization
from app.models.enums import OrganizationRole
from app.ratings import service
from app.ratings.dependencies import RatingRepo, ReportDays
from app.ratings.report import report
from app.ratings.schemas import OrganizationReport, RatingCreate, RatingOut, report_out

router = APIRouter(prefix="/api", tags=["ratings"])

# The rating's own conflicts as the 409's examples.
_RATING_ERRORS = errors(400, 401, 403, 404, 409)
_RATING_ERRORS[409]["content"]["application/json"] = {
    "examples": {
        code: {"value": {"error": "Conflict", "message": message, "code": code}}
        for code, message in (
            ("ALREADY_RATED", "This claim has been rated already; a claim is rated once."),
            ("RATING_CLOSED", "A claim can be rated within 14 days after it was resolved or closed."),
        )
    }
}

OrganizationId = Annotated[int, Path(alias="id", description="The organization's id."), DIGITS_ONLY]


@router.post(
    "/claims/{id}/rating",
    status_code=status.HTTP_201_CREATED,
    response_model=RatingOut,
    responses=_RATING_ERRORS,
)
async def rate_claim(
    body: RatingCreate, claim: VisibleClaimById, user: CurrentUser, ratings: RatingRepo, response: Response
) -> RatingOut:
    """Rate a resolved or closed claim: its customer only (403 for anyone else who sees the claim, 404 for
    anyone else), within 14 days after it last became resolved or closed (409 RATING_CLOSED before and
    after), once (409 ALREADY_RATED). The claim's detail shows it as `rating`; `Location` is the claim."""
    rating = await service.rate(claim, user, body.score, body.comment or None, ratings=ratings)
    response.headers["Location"] = f"/api/claims/{claim.id}"
    return RatingOut.of(rating)


@router.get(
    "/organizations/{id}/report", response_model=OrganizationReport, responses=errors(400, 401, 403, 404)
)
async def organization_report(
    organization_id: OrganizationId, days: ReportDays, user: CurrentUser, session: SessionDep
) -> OrganizationReport:
    """The organization's figures for the days `from` to `to` (UTC, both included, at most 366 days; 400
    otherwise): claims opened, resolved and closed; first-response and resolution deadlines met and missed
    with the median business minutes they took; ratings given; and the same per member, for the claims
    assigned to them. For its managers and admins; 403 for its agents, 404 for anyone else."""
    if not 1 <= organization_id <= MAX_ID:
        raise organization_not_found()
    membership = await require_member(session, user, organization_id, OrganizationRole.MANAGER)
    if membership is None and await session.get(Organization, organization_id) is None:
        raise organization_not_found()  # an admin naming no organization
    figures = await report(session, organization_id, days.period)
    return report_out(days.first.isoformat(), days.last.isoformat(), figures)
