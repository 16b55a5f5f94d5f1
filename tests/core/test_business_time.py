"""Business time: adding business minutes and counting them, checked against hand-computed instants
(weekends, the end of the day exclusive, the changes of the clocks in Europe/Berlin and America/New_York)
and against a minute-by-minute count."""

from __future__ import annotations

import random
import time as timer
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from app.core.business_time import (
    LAST_DAY,
    BusinessHours,
    add_business_minutes,
    business_minutes_between,
    clock_minutes,
)


def hours(zone: str, days: list[int], start: str, end: str) -> BusinessHours:
    found = BusinessHours.from_json({"timezone": zone, "days": days, "start": start, "end": end})
    assert found is not None
    return found


BERLIN = hours("Europe/Berlin", [1, 2, 3, 4, 5], "09:00", "17:00")
NEW_YORK = hours("America/New_York", [1, 2, 3, 4, 5], "09:00", "17:00")


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)  # type: ignore[misc]


def local(zone: str, *parts: int) -> datetime:
    return datetime(*parts, tzinfo=ZoneInfo(zone)).astimezone(UTC)  # type: ignore[misc]


def test_no_hours_is_plain_minutes() -> None:
    start = utc(2026, 3, 29, 0, 30)
    assert add_business_minutes(start, 1440, None) == utc(2026, 3, 30, 0, 30)
    assert business_minutes_between(start, utc(2026, 3, 30, 0, 30), None) == 1440
    assert business_minutes_between(start, start - timedelta(hours=1), None) == 0


def test_from_json_none_and_clock_minutes() -> None:
    assert BusinessHours.from_json(None) is None
    assert clock_minutes("09:30") == 570
    assert clock_minutes("24:00") == 1440


def test_inside_one_day() -> None:
    start = local("Europe/Berlin", 2026, 11, 2, 10, 0)  # a Monday, 10:00 CET
    assert add_business_minutes(start, 60, BERLIN) == local("Europe/Berlin", 2026, 11, 2, 11, 0)
    assert business_minutes_between(start, local("Europe/Berlin", 2026, 11, 2, 11, 0), BERLIN) == 60


def test_end_is_exclusive_and_the_rest_runs_the_next_morning() -> None:
    start = local("Europe/Berlin", 2026, 11, 2, 16, 0)
    # 60 minutes end exactly at 17:00; one more is at 09:01 the next day.
    assert add_business_minutes(start, 60, BERLIN) == local("Europe/Berlin", 2026, 11, 2, 17, 0)
    assert add_business_minutes(start, 61, BERLIN) == local("Europe/Berlin", 2026, 11, 3, 9, 1)


def test_a_start_outside_the_hours_waits_for_the_next_window() -> None:
    evening = local("Europe/Berlin", 2026, 11, 2, 20, 0)
    assert add_business_minutes(evening, 30, BERLIN) == local("Europe/Berlin", 2026, 11, 3, 9, 30)
    early = local("Europe/Berlin", 2026, 11, 2, 6, 0)
    assert add_business_minutes(early, 30, BERLIN) == local("Europe/Berlin", 2026, 11, 2, 9, 30)


def test_weekends_are_skipped() -> None:
    friday = local("Europe/Berlin", 2026, 11, 6, 16, 30)
    assert add_business_minutes(friday, 60, BERLIN) == local("Europe/Berlin", 2026, 11, 9, 9, 30)
    saturday = local("Europe/Berlin", 2026, 11, 7, 12, 0)
    assert add_business_minutes(saturday, 1, BERLIN) == local("Europe/Berlin", 2026, 11, 9, 9, 1)
    monday = local("Europe/Berlin", 2026, 11, 9, 9, 30)
    assert business_minutes_between(friday, monday, BERLIN) == 60


def test_the_default_deadlines_in_business_hours() -> None:
    # 1,440 business minutes are three 8-hour days: Monday 09:00 -> Wednesday 17:00.
    monday = local("Europe/Berlin", 2026, 11, 2, 9, 0)
    assert add_business_minutes(monday, 1440, BERLIN) == local("Europe/Berlin", 2026, 11, 4, 17, 0)
    # 7,200 are 15 days: three weeks.
    assert add_business_minutes(monday, 7200, BERLIN) == local("Europe/Berlin", 2026, 11, 20, 17, 0)


def test_berlin_spring_forward_inside_the_hours() -> None:
    # 29 March 2026: 02:00 CET becomes 03:00 CEST. Hours 01:00-05:00 last 3 real hours that Sunday.
    night = hours("Europe/Berlin", [7], "01:00", "05:00")
    opens = local("Europe/Berlin", 2026, 3, 29, 1, 0)
    assert opens == utc(2026, 3, 29, 0, 0)
    assert add_business_minutes(opens, 180, night) == utc(2026, 3, 29, 3, 0)  # 05:00 CEST
    assert add_business_minutes(opens, 181, night) == local("Europe/Berlin", 2026, 4, 5, 1, 1)
    assert business_minutes_between(opens, utc(2026, 3, 29, 12, 0), night) == 180


def test_berlin_fall_back_inside_the_hours() -> None:
    # 25 October 2026: 03:00 CEST becomes 02:00 CET. Hours 01:00-05:00 last 5 real hours that Sunday.
    night = hours("Europe/Berlin", [7], "01:00", "05:00")
    opens = local("Europe/Berlin", 2026, 10, 25, 1, 0)
    assert opens == utc(2026, 10, 24, 23, 0)
    assert add_business_minutes(opens, 300, night) == utc(2026, 10, 25, 4, 0)  # 05:00 CET
    assert business_minutes_between(opens, utc(2026, 10, 25, 12, 0), night) == 300


def test_office_hours_keep_the_wall_clock_across_a_change() -> None:
    # New York, 8 March 2026 (a Sunday) springs forward: Friday 16:00 EST + 120 minutes is Monday 10:00 EDT.
    friday = local("America/New_York", 2026, 3, 6, 16, 0)
    assert add_business_minutes(friday, 120, NEW_YORK) == local("America/New_York", 2026, 3, 9, 10, 0)
    assert add_business_minutes(friday, 120, NEW_YORK) == utc(2026, 3, 9, 14, 0)
    # 1 November 2026 falls back: Friday 16:00 EDT + 120 minutes is Monday 10:00 EST (15:00 UTC).
    autumn = local("America/New_York", 2026, 10, 30, 16, 0)
    assert add_business_minutes(autumn, 120, NEW_YORK) == utc(2026, 11, 2, 15, 0)


def test_a_wall_time_in_the_spring_gap() -> None:
    # New York's hours 02:30-04:00 on 8 March 2026: 02:30 does not exist; read as 03:30 EDT (fold 0), so
    # the window is 30 minutes long that day.
    gap = hours("America/New_York", [7], "02:30", "04:00")
    day_start = local("America/New_York", 2026, 3, 8, 0, 0)
    assert business_minutes_between(day_start, day_start + timedelta(days=1), gap) == 30


def test_whole_weeks_and_a_year_are_exact_and_fast() -> None:
    monday = local("Europe/Berlin", 2026, 1, 5, 9, 0)
    year = 52 * 5 * 480
    began = timer.perf_counter()
    due = add_business_minutes(monday, year, BERLIN)
    assert due == local("Europe/Berlin", 2027, 1, 1, 17, 0)  # 52 weeks later, Friday 17:00
    assert business_minutes_between(monday, due, BERLIN) == year
    assert timer.perf_counter() - began < 0.5


def test_a_huge_number_on_sparse_hours_stays_bounded() -> None:
    sparse = hours("Europe/Berlin", [1], "09:00", "09:01")
    began = timer.perf_counter()
    due = add_business_minutes(utc(2026, 1, 1), 525_600, sparse)
    assert due.date() <= LAST_DAY
    assert timer.perf_counter() - began < 0.5
    two_years = add_business_minutes(utc(2026, 1, 1), 150, sparse)
    assert two_years == local("Europe/Berlin", 2028, 11, 13, 9, 1)  # the 150th Monday


def _count_by_minute(start: datetime, end: datetime, found: BusinessHours) -> int:
    count, minute = 0, start
    while minute < end:
        window = found.window(found.local_day(minute))
        if window is not None and window[0] <= minute < window[1]:
            count += 1
        minute += timedelta(minutes=1)
    return count


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "UTC"])
def test_agrees_with_a_minute_by_minute_count(zone: str) -> None:
    chance = random.Random(zone)
    for _ in range(12):
        days = sorted(chance.sample(range(1, 8), chance.randint(1, 7)))
        start_minute = chance.randrange(0, 1400)
        end_minute = chance.randint(start_minute + 1, 1440)
        found = BusinessHours.from_json(
            {
                "timezone": zone,
                "days": days,
                "start": f"{start_minute // 60:02d}:{start_minute % 60:02d}",
                "end": f"{end_minute // 60:02d}:{end_minute % 60:02d}",
            }
        )
        assert found is not None
        # Around a change of the clocks in either hemisphere.
        start = utc(2026, chance.choice([3, 4, 10, 11]), chance.randint(1, 25), chance.randrange(24))
        end = start + timedelta(days=chance.randint(1, 20), minutes=chance.randrange(1440))
        counted = _count_by_minute(start, end, found)
        assert business_minutes_between(start, end, found) == counted
        if counted:
            wanted = chance.randint(1, counted)
            due = add_business_minutes(start, wanted, found)
            assert _count_by_minute(start, due, found) == wanted
            assert _count_by_minute(start, due - timedelta(minutes=1), found) == wanted - 1
