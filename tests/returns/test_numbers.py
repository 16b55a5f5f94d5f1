"""RMA numbers: `RMA-<year>-<6 digits>`, one counter per year that only grows (a deleted claim's number
is never given again), and a refusal once a year's 999,999 are given."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from sqlalchemy import select, update

from app.errors import Conflict
from app.models import RmaCounter
from app.returns.numbers import LAST, format_number, next_number


async def _next(app: FastAPI, year: int) -> str:
    async with app.state.sessionmaker() as session, session.begin():
        return await next_number(session, year)


def test_a_number_is_the_year_and_six_digits() -> None:
    assert format_number(2026, 42) == "RMA-2026-000042"
    assert format_number(2026, LAST) == "RMA-2026-999999"


async def test_each_year_counts_from_one(app: FastAPI) -> None:
    assert [await _next(app, 2026) for _ in range(3)] == [
        "RMA-2026-000001",
        "RMA-2026-000002",
        "RMA-2026-000003",
    ]
    assert await _next(app, 2027) == "RMA-2027-000001"
    assert await _next(app, 2026) == "RMA-2026-000004"


async def test_a_rolled_back_number_is_given_again_but_a_committed_one_never(app: FastAPI) -> None:
    assert await _next(app, 2026) == "RMA-2026-000001"
    async with app.state.sessionmaker() as session, session.begin():
        assert await next_number(session, 2026) == "RMA-2026-000002"
        await session.rollback()
    assert await _next(app, 2026) == "RMA-2026-000002"


async def test_after_the_last_number_of_a_year_none_is_given(app: FastAPI) -> None:
    assert await _next(app, 2026) == "RMA-2026-000001"
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(RmaCounter).where(RmaCounter.year == 2026).values(last=LAST - 1))
    assert await _next(app, 2026) == "RMA-2026-999999"

    with pytest.raises(Conflict) as refused:
        await _next(app, 2026)

    assert refused.value.code == "RMA_NUMBERS_EXHAUSTED"
    async with app.state.sessionmaker() as session:
        assert await session.scalar(select(RmaCounter.last).where(RmaCounter.year == 2026)) == LAST
    assert await _next(app, 2027) == "RMA-2027-000001"
