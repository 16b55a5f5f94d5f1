"""The report's period: two calendar days in UTC, both included, at most `MAX_DAYS` apart."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from app.errors import ValidationFailed
from app.ratings.report import Period

DAY_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
MAX_DAYS = 366


@dataclass(frozen=True)
class Days:
    first: date
    last: date

    @property
    def period(self) -> Period:
        """From the first day's midnight (UTC) to the midnight after the last day, excluded."""
        start = datetime.combine(self.first, time(), UTC)
        return Period(start, datetime.combine(self.last, time(), UTC) + timedelta(days=1))


def _day(name: str, value: str) -> date:
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise ValidationFailed.field(name, "not a day (YYYY-MM-DD)") from None
    if day.year < 2 or day.year > 9998:  # its midnights, and the one after, must be datetimes
        raise ValidationFailed.field(name, "out of range")
    return day


def period_of(first: str, last: str) -> Days:
    """400 VALIDATION_FAILED for a day that does not exist, `from` after `to`, or more than 366 days."""
    days = Days(_day("from", first), _day("to", last))
    if days.first > days.last:
        raise ValidationFailed.field("to", "before from")
    if (days.last - days.first).days + 1 > MAX_DAYS:
        raise ValidationFailed.field("to", f"more than {MAX_DAYS} days after from")
    return days
