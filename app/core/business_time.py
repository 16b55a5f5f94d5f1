"""Business time (contract 17.8): deadlines counted inside an organisation's business hours, on the wall
clock of its IANA time zone. Pure functions: nothing here reads the database or the clock.

A day's window runs from `start` to `end` (exclusive) of local wall-clock time on the ISO weekdays listed
(1 = Monday). Each window becomes a pair of UTC instants: on a day the clocks change inside it, the window
is an hour shorter (spring) or longer (autumn) than on the wall. A wall time that does not exist (in the
gap of a spring change) is read with the offset before the change, as `zoneinfo` does (fold 0).

Both operations walk day by day over at most one week at a time and skip whole weeks arithmetically when
the zone's offset is the same at both ends of the week (no change of the clocks inside it): a year of
deadlines costs at most some hundred steps, never a step per minute. Beyond `PRECISE_WEEKS` weeks ahead the
weeks are skipped by their wall-clock length whatever the clocks do (a deadline years away is a number,
not an appointment). No hours (None) means plain minutes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

MINUTES_PER_DAY = 24 * 60
PRECISE_WEEKS = 104  # weeks walked with the zone's changes of the clocks counted
LAST_DAY = date(9990, 1, 1)  # farther than this, a due time is this day (datetime stops at year 9999)
WEEK = timedelta(days=7)
DAY = timedelta(days=1)


@dataclass(frozen=True)
class BusinessHours:
    zone: ZoneInfo
    days: frozenset[int]  # ISO weekdays
    start: int  # minutes after local midnight
    end: int  # exclusive; up to 1440 (midnight at the end of the day)

    @classmethod
    def from_json(cls, value: Mapping[str, object] | None) -> BusinessHours | None:
        """The stored form {timezone, days, start: "HH:MM", end: "HH:MM"} (validated when it was set)."""
        if not value:
            return None
        days = value["days"]
        assert isinstance(days, list)
        return cls(
            ZoneInfo(str(value["timezone"])),
            frozenset(int(day) for day in days),
            clock_minutes(str(value["start"])),
            clock_minutes(str(value["end"])),
        )

    @property
    def week_length(self) -> timedelta:
        """A week's business time on the wall clock."""
        return timedelta(minutes=(self.end - self.start) * len(self.days))

    def window(self, day: date) -> tuple[datetime, datetime] | None:
        """The local day's business hours as UTC instants, or None on a day without."""
        if day.isoweekday() not in self.days:
            return None
        return self._instant(day, self.start), self._instant(day, self.end)

    def _instant(self, day: date, minutes: int) -> datetime:
        wall = datetime.combine(day, time()) + timedelta(minutes=minutes)  # naive: wall-clock arithmetic
        return wall.replace(tzinfo=self.zone).astimezone(UTC)

    def local_day(self, instant: datetime) -> date:
        return instant.astimezone(self.zone).date()

    def steady_week(self, day: date) -> bool:
        """Whether the clocks keep one offset from the local midnight of `day` to that of a week later."""
        return _offset(self.zone, day) == _offset(self.zone, day + WEEK)


def _offset(zone: ZoneInfo, day: date) -> timedelta | None:
    return datetime.combine(day, time(), tzinfo=zone).utcoffset()


def clock_minutes(text: str) -> int:
    """ "HH:MM" as minutes after midnight ("24:00" is the end of the day)."""
    hours, minutes = text.split(":")
    return int(hours) * 60 + int(minutes)


def add_business_minutes(start: datetime, minutes: int, hours: BusinessHours | None) -> datetime:
    """The instant `minutes` business minutes after `start` (the first instant at which that much
    business time has passed)."""
    if hours is None:
        return start + timedelta(minutes=minutes)
    remaining = timedelta(minutes=minutes)
    if remaining <= timedelta(0):
        return start
    day, weeks = hours.local_day(start), 0
    while True:
        window = hours.window(day)
        if window is not None:
            opens, closes = max(window[0], start), window[1]
            if opens < closes:
                if closes - opens >= remaining:
                    return opens + remaining
                remaining -= closes - opens
        day += DAY
        day, remaining, weeks = _skip_weeks(hours, day, remaining, weeks)
        if day >= LAST_DAY:
            return datetime.combine(LAST_DAY, time(), tzinfo=UTC)


def _skip_weeks(
    hours: BusinessHours, day: date, remaining: timedelta, weeks: int
) -> tuple[date, timedelta, int]:
    """Whole weeks from `day` that `remaining` outlasts, skipped at once."""
    week = hours.week_length
    while remaining > week and weeks < PRECISE_WEEKS and hours.steady_week(day):
        day, remaining, weeks = day + WEEK, remaining - week, weeks + 1
    if remaining > week and weeks >= PRECISE_WEEKS:
        skipped = min((remaining - timedelta(microseconds=1)) // week, (LAST_DAY - day).days // 7 + 1)
        day, remaining = day + WEEK * skipped, remaining - week * skipped
    return day, remaining, weeks


def business_minutes_between(start: datetime, end: datetime, hours: BusinessHours | None) -> int:
    """Whole business minutes from `start` to `end` (0 when `end` is not after `start`)."""
    if end <= start:
        return 0
    if hours is None:
        return int((end - start).total_seconds() // 60)
    total = timedelta(0)
    first, last = hours.local_day(start), hours.local_day(end)
    day, weeks = first, 0
    while day <= last:
        inside = first < day and day + WEEK < last  # a whole week strictly between the ends
        if inside and (weeks >= PRECISE_WEEKS or hours.steady_week(day)):
            total, day, weeks = total + hours.week_length, day + WEEK, weeks + 1
            continue
        window = hours.window(day)
        if window is not None:
            opens, closes = max(window[0], start), min(window[1], end)
            if opens < closes:
                total += closes - opens
        day += DAY
    return int(total.total_seconds() // 60)
