"""The outbox worker: claims due rows, delivers them outside any transaction, then marks them done or
reschedules them with exponential backoff and jitter.

Claiming is safe with several workers: on PostgreSQL the batch is selected `FOR UPDATE SKIP LOCKED` and
leased (`locked_until`) in one short transaction; on SQLite (one process, writers serialized by
`BEGIN IMMEDIATE`) the lease update alone suffices. A crashed worker's rows become due again when their
lease passes. Attempts are counted when a row is claimed, so a row that crashes its worker still ends as
`failed` after `outbox_max_attempts`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.core.clock import utc_now, utc_today
from app.models import OutboxItem

log = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any]], Awaitable[None]]


class PermanentFailure(Exception):
    """Delivery can never succeed (unknown kind, malformed payload): the row fails without retrying."""


class Skipped(Exception):
    """Nothing may be sent any more (the recipient left the claim): the row ends `skipped`, untried."""


@dataclass(frozen=True)
class Claimed:
    id: int
    kind: str
    payload: dict[str, Any]
    attempts: int
    lease: datetime


def backoff(settings: Settings, attempts: int) -> float:
    """Seconds before the next try after `attempts` tries: doubling from the base, capped, with jitter
    (between half and all of the delay) so a burst of failures does not retry in lockstep."""
    delay = min(settings.outbox_backoff_max, settings.outbox_backoff_base * 2 ** max(0, attempts - 1))
    return delay / 2 + random.uniform(0, delay / 2)


def lease_seconds(settings: Settings) -> float:
    """How long a claimed row is ours: well beyond one delivery's worst case (its network timeouts)."""
    return 60 + 3 * max(settings.smtp_timeout, settings.push_timeout)


class OutboxWorker:
    def __init__(
        self,
        settings: Settings,
        sessionmaker: async_sessionmaker[AsyncSession],
        handlers: Mapping[str, Handler],
        daily: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        self.settings = settings
        self.sessionmaker = sessionmaker
        self.handlers = handlers
        self.daily = daily  # the expiry alerts, run once per day by the loop
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()
        self._daily_done_on: date | None = None

    def wake(self) -> None:
        """Called after a commit that enqueued something: deliver now rather than at the next poll."""
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    async def claim_batch(self) -> list[Claimed]:
        """Lease up to `worker_batch_size` due rows to this worker (one short transaction)."""
        now = utc_now()
        lease = now + timedelta(seconds=lease_seconds(self.settings))
        statement = (
            select(OutboxItem)
            .where(
                OutboxItem.status == "pending",
                OutboxItem.next_attempt_at <= now,
                or_(OutboxItem.locked_until.is_(None), OutboxItem.locked_until <= now),
            )
            .order_by(OutboxItem.next_attempt_at, OutboxItem.id)
            .limit(self.settings.worker_batch_size)
        )
        if not self.settings.is_sqlite:
            statement = statement.with_for_update(skip_locked=True)
        async with self.sessionmaker() as session, session.begin():
            rows = list(await session.scalars(statement))
            for row in rows:
                row.locked_until = lease
                row.attempts += 1
            return [Claimed(row.id, row.kind, dict(row.payload), row.attempts, lease) for row in rows]

    async def deliver(self, item: Claimed) -> None:
        """Run the row's handler, then record the outcome (a session of its own)."""
        error: str | None = None
        permanent = False
        try:
            handler = self.handlers.get(item.kind)
            if handler is None:
                raise PermanentFailure(f"no handler for kind {item.kind!r}")
            await handler(item.payload)
        except Skipped as exc:
            await self._record(item, None, False, skipped=str(exc))
            return
        except PermanentFailure as exc:
            error, permanent = f"PermanentFailure: {exc}", True
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"[:2000]
            log.warning("outbox %s (%s) attempt %s failed: %s", item.id, item.kind, item.attempts, error)
        await self._record(item, error, permanent)

    async def _record(self, item: Claimed, error: str | None, permanent: bool, skipped: str = "") -> None:
        now = utc_now()
        values: dict[str, Any] = {"locked_until": None}
        if skipped:
            values.update(status="skipped", done_at=now, last_error=skipped)
        elif error is None:
            values.update(status="done", done_at=now, last_error=None)
        elif permanent or item.attempts >= self.settings.outbox_max_attempts:
            values.update(status="failed", last_error=error)
            log.error("outbox %s (%s) failed for good: %s", item.id, item.kind, error)
        else:
            retry_at = now + timedelta(seconds=backoff(self.settings, item.attempts))
            values.update(next_attempt_at=retry_at, last_error=error)
        async with self.sessionmaker() as session, session.begin():
            # Only while the lease is still ours: a row re-claimed after our lease ran out is not ours.
            await session.execute(
                update(OutboxItem)
                .where(OutboxItem.id == item.id, OutboxItem.locked_until == item.lease)
                .values(**values)
            )

    async def run_until_idle(self) -> int:
        """Deliver batches until nothing is due; answers how many rows were attempted."""
        attempted = 0
        while True:
            batch = await self.claim_batch()
            if not batch:
                return attempted
            outcomes = await asyncio.gather(*(self.deliver(item) for item in batch), return_exceptions=True)
            for outcome in outcomes:
                if isinstance(outcome, BaseException):
                    # Recording the outcome failed (database away): the lease runs out, the row comes back.
                    log.error("outbox outcome not recorded: %r", outcome)
            attempted += len(batch)

    async def run_daily(self) -> None:
        """The daily job, once per UTC day per process (the job itself is exactly-once per alert)."""
        today = utc_today()
        if self.daily is None or self._daily_done_on == today:
            return
        await self.daily()
        self._daily_done_on = today

    async def run_forever(self) -> None:
        """Deliver, then sleep until woken by a commit, the poll interval, or stop()."""
        while not self._stop.is_set():
            self._wake.clear()
            try:
                await self.run_daily()
                await self.run_until_idle()
            except Exception:  # the database may be away for a moment; keep the loop alive
                log.exception("outbox worker round failed; retrying after the poll interval")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self.settings.worker_poll_interval)
