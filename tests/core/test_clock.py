"""The one source of time (app.core.clock): the real UTC time unless a test pins it with `frozen_time`, and
the two ways timestamps are written."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

from app.core.clock import frozen_time, iso_utc, iso_utc_z, utc_now, utc_today


def test_now_is_the_real_utc_time() -> None:
    before = datetime.now(UTC)
    now = utc_now()
    assert before <= now <= datetime.now(UTC)
    assert now.utcoffset() == timedelta(0)
    assert utc_today() in (before.date(), datetime.now(UTC).date())


def test_frozen_time_pins_now_and_today_in_utc_then_lets_go() -> None:
    berlin = timezone(timedelta(hours=1))
    at = datetime(2026, 1, 1, 0, 30, tzinfo=berlin)  # still 2025 in UTC

    with frozen_time(at):
        assert utc_now() == at and utc_now().tzinfo == UTC
        assert utc_today() == date(2025, 12, 31)
        with frozen_time(at + timedelta(days=2)):  # nested: the inner one wins, then the outer again
            assert utc_today() == date(2026, 1, 2)
        assert utc_now() == at

    assert abs(utc_now() - datetime.now(UTC)) < timedelta(minutes=1)


def test_frozen_time_lets_go_when_the_block_fails() -> None:
    try:
        with frozen_time(datetime(2000, 1, 1, tzinfo=UTC)):
            raise ValueError
    except ValueError:
        pass
    assert utc_now().year > 2000


def test_resource_timestamps_are_utc_with_an_offset_and_no_fraction() -> None:
    at = datetime(2026, 1, 15, 1, 2, 3, 456789, tzinfo=timezone(timedelta(hours=2)))
    assert iso_utc(at) == "2026-01-14T23:02:03+00:00"


def test_event_timestamps_are_utc_ending_in_z() -> None:
    at = datetime(2026, 1, 15, 1, 2, 3, 456789, tzinfo=timezone(timedelta(hours=-5)))
    assert iso_utc_z(at) == "2026-01-15T06:02:03Z"
