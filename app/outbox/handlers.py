"""The handler protocol: each outbox kind names an async handler that sends one row's payload. The worker
(app.outbox.worker) knows no kind: the receivers register theirs (app.notifications.outbox_handlers,
app.webhooks.delivery) and the entry points hand them to it (app.worker_assembly).

A handler returns when the row is delivered, raises Skipped when nothing may be sent any more,
PermanentFailure when it never can be, and anything else to be retried with backoff."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.models.enums import OutboxState

Handler = Callable[[dict[str, Any]], Awaitable[None]]

# Told that a row is finished (done, skipped or failed for good), in the transaction that records it:
# (session, outbox id, kind, payload, status, error).
Finished = Callable[[AsyncSession, int, str, dict[str, Any], OutboxState, str | None], Awaitable[None]]


class PermanentFailure(Exception):
    """Delivery can never succeed (unknown kind, malformed payload): the row fails without retrying."""


class Skipped(Exception):
    """Nothing may be sent any more (the recipient left the claim): the row ends `skipped`, untried."""


class RetryLater(Exception):
    """The receiver asked to be tried again later (HTTP 429 or 5xx, maybe with `Retry-After`): retried as any
    failure, but not before `seconds` (when given; the backoff's delay when it is longer)."""

    def __init__(self, message: str, seconds: float | None = None) -> None:
        super().__init__(message)
        self.seconds = seconds
