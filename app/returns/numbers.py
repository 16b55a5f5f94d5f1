"""Return authorisation numbers (contract 17.10, docs/api.md "Returns"): `RMA-<year>-<6 digits>`, the year
the UTC year of issue, the digits a counter per year from 000001. The counter is one row per year that only
ever grows, taken by one statement (an upsert that adds one and returns the result: concurrent issuers
wait for each other on the row, none gets the same number). Its rows belong to no claim, so a number
stays given when its claim is deleted: never reused. A transaction that rolls back gives its number back
with it, so issued numbers are dense except where a claim was deleted."""

from __future__ import annotations

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import Conflict
from app.models import RmaCounter

LAST = 999_999  # six digits a year


def format_number(year: int, sequence: int) -> str:
    return f"RMA-{year}-{sequence:06d}"


async def next_number(session: AsyncSession, year: int) -> str:
    """The year's next number. 409 RMA_NUMBERS_EXHAUSTED once 999,999 were given in the year (no more
    numbers of the contract's form that year; the request changes nothing)."""
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    statement = (
        dialect.insert(RmaCounter)
        .values(year=year, last=1)
        .on_conflict_do_update(index_elements=["year"], set_={"last": RmaCounter.last + 1})
        .returning(RmaCounter.last)
    )
    sequence = int((await session.execute(statement)).scalar_one())
    if sequence > LAST:
        raise Conflict(
            f"Every return number of {year} has been given ({LAST:,}).", code="RMA_NUMBERS_EXHAUSTED"
        )
    return format_number(year, sequence)
