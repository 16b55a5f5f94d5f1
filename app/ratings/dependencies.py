"""The ratings routes' own request dependencies: the repository and the report's period. Only route
modules import it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query

from app.api.dependencies import repository
from app.ratings.period import DAY_PATTERN, Days, period_of
from app.ratings.repository import RatingRepository

RatingRepo = Annotated[RatingRepository, Depends(repository(RatingRepository))]


async def report_days(
    first: Annotated[
        str,
        Query(alias="from", pattern=DAY_PATTERN, description="First day, UTC (YYYY-MM-DD), included."),
    ],
    last: Annotated[
        str, Query(alias="to", pattern=DAY_PATTERN, description="Last day, UTC (YYYY-MM-DD), included.")
    ],
) -> Days:
    return period_of(first, last)


ReportDays = Annotated[Days, Depends(report_days)]
