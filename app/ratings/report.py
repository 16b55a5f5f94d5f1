"""An organisation's report for a period (contract 17.11; docs/api.md, "Ratings and the report"): what
happened to its claims, how their deadlines went and how customers rated them, in total and per agent.
Every figure is computed in the database, medians included, in one statement per family of figures (four
in all) whatever the number of claims and agents: each statement reads its rows once, twice bucketed (bucket
0: the whole organisation; bucket N: the claims whose agent is user N), and groups by bucket.

The period is `[start, end)` in UTC. Claims count in the organisation they are routed to now, and for the
agent assigned to them now."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    CompoundSelect,
    Select,
    and_,
    case,
    func,
    literal,
    null,
    or_,
    select,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from app.models import Claim, ClaimDeadline, ClaimEvent, ClaimRating, OrganizationMember, User
from app.models.enums import ClaimStatus
from app.ratings.repository import moved_to

WHOLE = 0  # the bucket of the whole organisation (user ids start at 1)
SCORES = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class Period:
    start: datetime
    end: datetime  # exclusive

    def holds(self, column: Any) -> ColumnElement[bool]:
        return and_(column >= self.start, column < self.end)


@dataclass
class ClaimCounts:
    opened: int = 0
    resolved: int = 0
    closed: int = 0


@dataclass
class DeadlineFigures:
    median_minutes: float | None = None
    met: int = 0
    missed: int = 0


@dataclass
class RatingFigures:
    count: int = 0
    mean: float | None = None
    by_score: dict[str, int] = field(default_factory=lambda: {str(score): 0 for score in SCORES})


@dataclass
class Figures:
    claims: ClaimCounts = field(default_factory=ClaimCounts)
    first_response: DeadlineFigures = field(default_factory=DeadlineFigures)
    resolution: DeadlineFigures = field(default_factory=DeadlineFigures)
    ratings: RatingFigures = field(default_factory=RatingFigures)


@dataclass(frozen=True)
class Agent:
    user_id: int
    name: str


@dataclass
class Report:
    whole: Figures
    agents: list[tuple[Agent, Figures]]


def _bucketed(rows: Select[*tuple[Any, ...]], *columns: str) -> CompoundSelect[Any]:
    """`rows` (with a `supplier_id` column) twice: every row in the whole organisation's bucket, and the
    rows of assigned claims in their agent's bucket."""
    found = rows.cte()
    kept = [found.c[name] for name in columns]
    whole = select(literal(WHOLE).label("bucket"), *kept)
    per_agent = select(found.c.supplier_id.label("bucket"), *kept).where(found.c.supplier_id.is_not(None))
    return union_all(whole, per_agent)


def _flag(condition: ColumnElement[bool]) -> ColumnElement[int]:
    return case((condition, 1), else_=0)


async def claim_counts(session: AsyncSession, organization_id: int, period: Period) -> dict[int, ClaimCounts]:
    """Claims opened, resolved and closed in the period, by bucket: distinct claims per figure (a claim
    resolved twice in the period counts once; resolved then closed counts in both)."""
    ours = Claim.organization_id == organization_id
    opened = select(Claim.id.label("claim_id"), Claim.supplier_id, literal("opened").label("what")).where(
        ours, period.holds(Claim.created_at)
    )
    settled = (
        select(ClaimEvent.claim_id, Claim.supplier_id, ClaimEvent.data["to"].as_string().label("what"))
        .join(Claim, Claim.id == ClaimEvent.claim_id)
        .where(ours, period.holds(ClaimEvent.created_at), *moved_to(ClaimStatus.RESOLVED, ClaimStatus.CLOSED))
    )
    rows = _bucketed(union_all(opened, settled).subquery().select(), "claim_id", "what").subquery()

    def distinct(what: str) -> ColumnElement[int]:
        return func.count(func.distinct(case((rows.c.what == what, rows.c.claim_id))))

    statement = select(
        rows.c.bucket, distinct("opened"), distinct(ClaimStatus.RESOLVED), distinct(ClaimStatus.CLOSED)
    ).group_by(rows.c.bucket)
    result = await session.execute(statement)
    return {row[0]: ClaimCounts(int(row[1]), int(row[2]), int(row[3])) for row in result}


@dataclass(frozen=True)
class DeadlineColumns:
    done_at: InstrumentedAttribute[Any]
    due_at: InstrumentedAttribute[Any]
    breached_at: InstrumentedAttribute[Any]
    minutes: InstrumentedAttribute[Any]


FIRST_RESPONSE = DeadlineColumns(
    ClaimDeadline.first_responded_at,
    ClaimDeadline.first_response_due_at,
    ClaimDeadline.first_response_breached_at,
    ClaimDeadline.first_response_minutes,
)
RESOLUTION = DeadlineColumns(
    ClaimDeadline.resolved_at,
    ClaimDeadline.resolution_due_at,
    ClaimDeadline.resolution_breached_at,
    ClaimDeadline.resolution_minutes,
)


def _deadline_rows(
    organization_id: int, period: Period, deadline: DeadlineColumns
) -> Select[*tuple[Any, ...]]:
    """One row per deadline of the organisation's claims met or missed in the period, each counted once:
    met when done in the period, no later than due (or with nothing due: its clock was paused) and never
    breached; missed when its breach was recorded in the period, or, with no breach recorded (yet), when
    it was done late in the period. `measured`: the business minutes it took, when done in the period."""
    done = period.holds(deadline.done_at)
    on_time = or_(deadline.due_at.is_(None), deadline.done_at <= deadline.due_at)
    unbreached = deadline.breached_at.is_(None)
    met = and_(done, unbreached, on_time)
    missed = or_(period.holds(deadline.breached_at), and_(done, unbreached, ~on_time))
    return (
        select(
            Claim.supplier_id,
            case((done, deadline.minutes), else_=null()).label("measured"),
            _flag(met).label("met"),
            _flag(missed).label("missed"),
        )
        .join(Claim, Claim.id == ClaimDeadline.claim_id)
        .where(Claim.organization_id == organization_id, or_(done, period.holds(deadline.breached_at)))
    )


async def deadline_figures(
    session: AsyncSession, organization_id: int, period: Period, deadline: DeadlineColumns
) -> dict[int, DeadlineFigures]:
    """Per bucket: the exact median of the minutes measured (the middle value, or the mean of the two
    middle ones: the rows whose rank r among n measured values has n <= 2r <= n + 2), met and missed."""
    rows = _bucketed(
        _deadline_rows(organization_id, period, deadline), "measured", "met", "missed"
    ).subquery()
    unmeasured = _flag(rows.c.measured.is_(None))
    ranked = select(
        rows.c.bucket,
        rows.c.measured,
        rows.c.met,
        rows.c.missed,
        func.row_number()
        .over(partition_by=(rows.c.bucket, unmeasured), order_by=rows.c.measured)
        .label("rank"),
        func.count(rows.c.measured).over(partition_by=rows.c.bucket).label("n"),
    ).subquery()
    middle = and_(
        ranked.c.measured.is_not(None),
        ranked.c.n <= 2 * ranked.c.rank,
        2 * ranked.c.rank <= ranked.c.n + 2,
    )
    statement = select(
        ranked.c.bucket,
        func.avg(case((middle, ranked.c.measured), else_=null())),
        func.sum(ranked.c.met),
        func.sum(ranked.c.missed),
    ).group_by(ranked.c.bucket)
    result = await session.execute(statement)
    return {
        row[0]: DeadlineFigures(None if row[1] is None else float(row[1]), int(row[2]), int(row[3]))
        for row in result
    }


async def rating_figures(
    session: AsyncSession, organization_id: int, period: Period
) -> dict[int, RatingFigures]:
    """Ratings given in the period, by bucket: how many, their mean score and how many of each score."""
    given = (
        select(Claim.supplier_id, ClaimRating.score)
        .join(Claim, Claim.id == ClaimRating.claim_id)
        .where(Claim.organization_id == organization_id, period.holds(ClaimRating.created_at))
    )
    rows = _bucketed(given, "score").subquery()
    per_score = [func.sum(_flag(rows.c.score == score)) for score in SCORES]
    statement = select(rows.c.bucket, func.count(), func.avg(rows.c.score), *per_score).group_by(
        rows.c.bucket
    )
    result = await session.execute(statement)
    return {
        row[0]: RatingFigures(
            int(row[1]),
            None if row[2] is None else float(row[2]),
            {str(score): int(row[3 + index]) for index, score in enumerate(SCORES)},
        )
        for row in result
    }


async def members(session: AsyncSession, organization_id: int) -> list[Agent]:
    """The organisation's members (agents and managers: any of them may be assigned claims), by name."""
    statement = (
        select(User.id, User.name)
        .join(OrganizationMember, OrganizationMember.user_id == User.id)
        .where(OrganizationMember.organization_id == organization_id)
        .order_by(User.name, User.id)
    )
    return [Agent(row.id, row.name) for row in await session.execute(statement)]


async def report(session: AsyncSession, organization_id: int, period: Period) -> Report:
    """Five statements (the four families of figures, then the members) whatever the organisation's size."""
    counts = await claim_counts(session, organization_id, period)
    first = await deadline_figures(session, organization_id, period, FIRST_RESPONSE)
    resolution = await deadline_figures(session, organization_id, period, RESOLUTION)
    ratings = await rating_figures(session, organization_id, period)

    def figures(bucket: int) -> Figures:
        return Figures(
            counts.get(bucket, ClaimCounts()),
            first.get(bucket, DeadlineFigures()),
            resolution.get(bucket, DeadlineFigures()),
            ratings.get(bucket, RatingFigures()),
        )

    agents = await members(session, organization_id)
    return Report(figures(WHOLE), [(agent, figures(agent.user_id)) for agent in agents])
