"""The report's period: two days, both included, in UTC, at most 366 days."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from app.errors import ValidationFailed
from app.ratings.period import period_of


def test_both_days_are_included_in_utc() -> None:
    days = period_of("2026-11-01", "2026-11-30")
    assert (days.first, days.last) == (date(2026, 11, 1), date(2026, 11, 30))
    assert days.period.start == datetime(2026, 11, 1, tzinfo=UTC)
    assert days.period.end == datetime(2026, 12, 1, tzinfo=UTC)
    one = period_of("2028-02-29", "2028-02-29").period
    assert (one.start, one.end) == (datetime(2028, 2, 29, tzinfo=UTC), datetime(2028, 3, 1, tzinfo=UTC))


def test_at_most_366_days() -> None:
    assert period_of("2028-01-01", "2028-12-31").last == date(2028, 12, 31)  # a leap year: 366 days
    with pytest.raises(ValidationFailed) as refused:
        period_of("2026-01-01", "2027-01-02")  # 367 days
    assert refused.value.details == {"fields": {"to": "more than 366 days after from"}}


@pytest.mark.parametrize(
    ("first", "last", "field"),
    [
        ("2026-02-30", "2026-03-01", "from"),
        ("2026-01-01", "2026-13-01", "to"),
        ("0000-01-01", "0000-01-02", "from"),
        ("9999-12-30", "9999-12-31", "from"),
        ("2026-11-02", "2026-11-01", "to"),
    ],
)
def test_impossible_periods_are_refused(first: str, last: str, field: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        period_of(first, last)
    assert list(refused.value.details["fields"]) == [field]
