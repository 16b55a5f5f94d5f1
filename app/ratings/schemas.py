"""What the ratings API takes and answers (contract 17.11; docs/api.md, "Ratings and the report")."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, StrictInt

from app.api.schemas import IsoUtc, RequestModel, ResponseModel
from app.models import ClaimRating
from app.ratings.report import ClaimCounts, DeadlineFigures, Figures, RatingFigures, Report

MAX_COMMENT = 2000
Score = Annotated[StrictInt, Field(ge=1, le=5, description="1 (poor) to 5 (excellent).", examples=[5])]


class RatingCreate(RequestModel):
    """The customer's rating of a resolved or closed claim; `comment` is optional (blank is none)."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"score": 5, "comment": "Fixed within two days, thank you."}]}
    )

    score: Score
    comment: str | None = Field(
        default=None, max_length=MAX_COMMENT, examples=["Fixed within two days, thank you."]
    )


class RatingOut(ResponseModel):
    claim_id: int = Field(examples=[42])
    score: int = Field(examples=[5])
    comment: str | None = Field(examples=["Fixed within two days, thank you."])
    created_at: IsoUtc

    @classmethod
    def of(cls, rating: ClaimRating) -> RatingOut:
        return cls(
            claim_id=rating.claim_id, score=rating.score, comment=rating.comment, created_at=rating.created_at
        )


class ClaimCountsOut(ResponseModel):
    opened: int = Field(description="Claims opened in the period.", examples=[12])
    resolved: int = Field(description="Claims that became resolved in the period.", examples=[9])
    closed: int = Field(description="Claims that became closed in the period.", examples=[7])


class DeadlineOut(ResponseModel):
    median_minutes: float | None = Field(
        description="Exact median of the business minutes taken by the deadlines met in the period, late "
        "ones included; null when none.",
        examples=[95.5],
    )
    met: int = Field(description="Deadlines met in time in the period.", examples=[8])
    missed: int = Field(description="Deadlines missed in the period.", examples=[1])


class ScoreCounts(ResponseModel):
    one: int = Field(alias="1", examples=[0])
    two: int = Field(alias="2", examples=[1])
    three: int = Field(alias="3", examples=[1])
    four: int = Field(alias="4", examples=[2])
    five: int = Field(alias="5", examples=[3])


class RatingsOut(ResponseModel):
    count: int = Field(description="Ratings given in the period.", examples=[7])
    mean: float | None = Field(description="Their mean score, not rounded; null when none.", examples=[4.0])
    by_score: ScoreCounts


class AgentReport(ResponseModel):
    agent_id: int = Field(examples=[9])
    name: str = Field(examples=["Sam Supplier"])
    claims: ClaimCountsOut
    first_response: DeadlineOut
    resolution: DeadlineOut
    ratings: RatingsOut


class OrganizationReport(ResponseModel):
    from_: str = Field(alias="from", description="The first day (UTC), as asked.", examples=["2026-11-01"])
    to: str = Field(description="The last day (UTC), included.", examples=["2026-11-30"])
    claims: ClaimCountsOut
    first_response: DeadlineOut
    resolution: DeadlineOut
    ratings: RatingsOut
    agents: list[AgentReport] = Field(
        description="Every member of the organisation (managers too), by name, with the figures of the "
        "claims assigned to them now."
    )


def _counts(counts: ClaimCounts) -> ClaimCountsOut:
    return ClaimCountsOut(opened=counts.opened, resolved=counts.resolved, closed=counts.closed)


def _deadline(figures: DeadlineFigures) -> DeadlineOut:
    return DeadlineOut(median_minutes=figures.median_minutes, met=figures.met, missed=figures.missed)


def _ratings(figures: RatingFigures) -> RatingsOut:
    scores = figures.by_score
    by_score = ScoreCounts(
        one=scores["1"], two=scores["2"], three=scores["3"], four=scores["4"], five=scores["5"]
    )
    return RatingsOut(count=figures.count, mean=figures.mean, by_score=by_score)


def agent_out(agent_id: int, name: str, figures: Figures) -> AgentReport:
    return AgentReport(
        agent_id=agent_id,
        name=name,
        claims=_counts(figures.claims),
        first_response=_deadline(figures.first_response),
        resolution=_deadline(figures.resolution),
        ratings=_ratings(figures.ratings),
    )


def report_out(first_day: str, last_day: str, report: Report) -> OrganizationReport:
    whole = report.whole
    return OrganizationReport(
        from_=first_day,
        to=last_day,
        claims=_counts(whole.claims),
        first_response=_deadline(whole.first_response),
        resolution=_deadline(whole.resolution),
        ratings=_ratings(whole.ratings),
        agents=[agent_out(agent.user_id, agent.name, figures) for agent, figures in report.agents],
    )
