"""An outbox row's states: pending until the worker finishes it as done, failed (after its last attempt, or
at once for an error no retry can fix) or skipped (nothing to send any more)."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal


class OutboxState(StrEnum):
    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"


# As the admin list filters on it (tests/test_vocabularies.py holds it equal to `OutboxState`).
OutboxStateName = Literal["pending", "done", "failed", "skipped"]
