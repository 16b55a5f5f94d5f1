"""The one source of time. Tests move it with `frozen_time`; nothing else calls datetime.now()."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime

_frozen: datetime | None = None


def utc_now() -> datetime:
    return _frozen if _frozen is not None else datetime.now(UTC)


def utc_today() -> date:
    return utc_now().date()


@contextmanager
def frozen_time(at: datetime) -> Iterator[None]:
    """Pin utc_now() to `at` (tests only)."""
    global _frozen
    previous, _frozen = _frozen, at.astimezone(UTC)
    try:
        yield
    finally:
        _frozen = previous


def iso_utc(value: datetime) -> str:
    """Resource timestamps: `2026-01-15T00:00:00+00:00`."""
    return value.astimezone(UTC).replace(microsecond=0).isoformat()


def iso_utc_z(value: datetime) -> str:
    """Real-time event timestamps end in Z: `2026-01-15T00:00:00Z`."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
