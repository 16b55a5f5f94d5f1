"""The outbox worker: claims due rows, delivers them outside any transaction, then marks them done or
reschedules them with exponential backoff and jitter.

Channels do not wait for each other (docs/api.md §9): each channel (a kind's prefix: email, push, webhook)
claims and sends on its own, with at most `worker_batch_size` sends in flight, and claims again as soon as
one finishes, so a mail server that accepts and never answers holds only the emails it holds, never a push.
Every send runs under its channel's timeout, which the receivers' assembly gives (app.worker_assembly): the
worker knows no kind and no transport.

Retries span an outage (16.4): a row is retried with backoff until `outbox_retry_hours` (default 24) have
surely passed since its first try, then it is `failed` (an admin may retry it, alone or in bulk).

Claiming is safe with several workers: on PostgreSQL the batch is selected `FOR UPDATE SKIP LOCKED` and
leased (`locked_until`) in one short transaction; on SQLite (one process, writers serialized by
`BEGIN IMMEDIATE`) the lease update alone suffices. A crashed worker's rows become due again when their
lease passes. Attempts are counted when a row is claimed, so a row that crashes its worker still ends as
`failed` once its retries are spent.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, not_, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.core.background import pause
from app.core.clock import utc_now, utc_today
from app.models import OutboxItem
from app.models.enums import OutboxState
from app.observability import request_context
from app.outbox.handlers import Finished, Handler, PermanentFailure, RetryLater, Skipped
from app.outbox.retention import prune_outbox

log = logging.getLogger(__name__)

PRUNE_EVERY = 3600.0  # seconds between two prunings of the outbox by one worker
OTHER = "other"  # the channel of kinds no handler's channel covers


@dataclass(frozen=True)
class Claimed:
    id: int
    kind: str
    payload: dict[str, Any]
    attempts: int
    lease: datetime
    request_id: str | None = None  # the request that enqueued it


def backoff(settings: Settings, attempts: int) -> float:
    """Seconds before the next try after `attempts` tries: doubling from the base, capped, with jitter
    (between half and all of the delay) so a burst of failures does not retry in lockstep."""
    delay = min(settings.outbox_backoff_max, settings.outbox_backoff_base * 2 ** max(0, attempts - 1))
    return delay / 2 + random.uniform(0, delay / 2)


def max_attempts(settings: Settings) -> int:
    """Attempts before a row fails: the first one whose time, with the shortest jitter draws, comes at least
    `outbox_retry_hours` after the first attempt."""
    window = settings.outbox_retry_hours * 3600
    attempts, waited = 1, 0.0
    while waited < window:
        waited += min(settings.outbox_backoff_max, settings.outbox_backoff_base * 2 ** (attempts - 1)) / 2
        attempts += 1
    return attempts


def channel_of(kind: str) -> str:
    """`email.claim_message` -> `email`: the kinds that share a transport share a channel."""
    return kind.split(".", 1)[0]


DEFAULT_OPERATION_TIMEOUT = 10.0  # seconds, for a channel whose transport names no timeout of its own


def send_timeout(operation_timeouts: Mapping[str, float], channel: str) -> float:
    """The most one send may take: a few of the transport's own network timeouts (connect, greeting,
    each command), never unbounded. A channel without one gets the longest there is."""
    longest = max(operation_timeouts.values(), default=DEFAULT_OPERATION_TIMEOUT)
    return 3 * operation_timeouts.get(channel, longest)


def lease_seconds(operation_timeouts: Mapping[str, float]) -> float:
    """How long a claimed row is ours: well beyond one delivery's worst case (its send timeout)."""
    return 60 + 3 * max(operation_timeouts.values(), default=DEFAULT_OPERATION_TIMEOUT)


class OutboxWorker:
    def __init__(
        self,
        settings: Settings,
        sessionmaker: async_sessionmaker[AsyncSession],
        handlers: Mapping[str, Handler],
        daily: Callable[[], Awaitable[object]] | None = None,
        finished: Finished | None = None,
        operation_timeouts: Mapping[str, float] | None = None,
        periodic: Sequence[tuple[float, Callable[[], Awaitable[object]]]] = (),
    ) -> None:
        self.settings = settings
        self.sessionmaker = sessionmaker
        self.handlers = handlers
        self.daily = daily  # the expiry alerts, run once per day by the loop
        self.finished = finished  # a claim's timeline notes its notifications' outcomes
        self.periodic = tuple(
            periodic
        )  # (seconds, job): other jobs run beside the lanes, each every so often
        # Each channel's transport timeout per network operation (the receivers' settings, by channel).
        self.operation_timeouts = dict(operation_timeouts or {})
        self._stop = asyncio.Event()
        self._lane_wakes: set[asyncio.Event] = set()
        self._daily_done_on: date | None = None
        self._pruned_at: float | None = None
        # The channels of the kinds it can deliver, and one for any other kind (which fails for good).
        self.channels = (*sorted({channel_of(kind) for kind in handlers}), OTHER)

    def wake(self) -> None:
        """Called after a commit that enqueued something: deliver now rather than at the next poll."""
        for wake in self._lane_wakes:
            wake.set()

    def stop(self) -> None:
        self._stop.set()
        for wake in self._lane_wakes:
            wake.set()

    async def claim_batch(self, channel: str | None = None, limit: int | None = None) -> list[Claimed]:
        """Lease up to `limit` (default `worker_batch_size`) due rows of `channel` (default every channel)
        to this worker (one short transaction)."""
        now = utc_now()
        lease = now + timedelta(seconds=lease_seconds(self.operation_timeouts))
        statement = (
            select(OutboxItem)
            .where(
                OutboxItem.status == OutboxState.PENDING,
                OutboxItem.next_attempt_at <= now,
                or_(OutboxItem.locked_until.is_(None), OutboxItem.locked_until <= now),
            )
            .order_by(OutboxItem.next_attempt_at, OutboxItem.id)
            .limit(limit or self.settings.worker_batch_size)
        )
        if channel is not None:
            statement = statement.where(self._of_channel(channel))
        if not self.settings.is_sqlite:
            statement = statement.with_for_update(skip_locked=True)
        async with self.sessionmaker() as session, session.begin():
            rows = list(await session.scalars(statement))
            for row in rows:
                row.locked_until = lease
                row.attempts += 1
            return [
                Claimed(row.id, row.kind, dict(row.payload), row.attempts, lease, row.request_id)
                for row in rows
            ]

    def _of_channel(self, channel: str) -> ColumnElement[bool]:
        if channel != OTHER:
            return OutboxItem.kind.startswith(f"{channel}.", autoescape=True)
        known = [OutboxItem.kind.startswith(f"{name}.", autoescape=True) for name in self.channels[:-1]]
        return not_(or_(*known))

    async def deliver(self, item: Claimed) -> None:
        """Run the row's handler, then record the outcome (a session of its own). Meanwhile the request
        that enqueued the row is the current one: log lines and the push gateway's X-Request-ID name it."""
        bound = request_context.bind(item.request_id) if item.request_id else None
        try:
            await self._deliver(item)
        finally:
            if bound is not None:
                request_context.unbind(bound)

    async def _deliver(self, item: Claimed) -> None:
        error: str | None = None
        permanent = False
        not_before: float | None = None
        timeout = send_timeout(self.operation_timeouts, channel_of(item.kind))
        try:
            handler = self.handlers.get(item.kind)
            if handler is None:
                raise PermanentFailure(f"no handler for kind {item.kind!r}")
            async with asyncio.timeout(timeout):
                await handler(item.payload)
        except Skipped as exc:
            await self._record(item, None, False, skipped=str(exc))
            return
        except PermanentFailure as exc:
            error, permanent = f"PermanentFailure: {exc}", True
        except RetryLater as exc:
            error, not_before = f"RetryLater: {exc}"[:2000], exc.seconds
            log.warning("outbox %s (%s) attempt %s deferred: %s", item.id, item.kind, item.attempts, error)
        except TimeoutError:
            error = f"TimeoutError: no answer within {timeout} s"
            log.warning("outbox %s (%s) attempt %s timed out", item.id, item.kind, item.attempts)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"[:2000]
            log.warning("outbox %s (%s) attempt %s failed: %s", item.id, item.kind, item.attempts, error)
        await self._record(item, error, permanent, not_before=not_before)

    async def _record(
        self,
        item: Claimed,
        error: str | None,
        permanent: bool,
        skipped: str = "",
        not_before: float | None = None,
    ) -> None:
        now = utc_now()
        values: dict[str, Any] = {"locked_until": None}
        if skipped:
            values.update(status=OutboxState.SKIPPED, done_at=now, last_error=skipped)
        elif error is None:
            values.update(status=OutboxState.DONE, done_at=now, last_error=None)
        elif permanent or item.attempts >= max_attempts(self.settings):
            values.update(status=OutboxState.FAILED, last_error=error)
            log.error("outbox %s (%s) failed for good: %s", item.id, item.kind, error)
        else:
            delay = backoff(self.settings, item.attempts)
            if not_before is not None:  # the receiver's Retry-After, within the longest backoff
                delay = max(delay, min(not_before, self.settings.outbox_backoff_max))
            retry_at = now + timedelta(seconds=delay)
            values.update(next_attempt_at=retry_at, last_error=error)
        async with self.sessionmaker() as session, session.begin():
            # Only while the lease is still ours: a row re-claimed after our lease ran out is not ours.
            result = await session.execute(
                update(OutboxItem)
                .where(OutboxItem.id == item.id, OutboxItem.locked_until == item.lease)
                .values(**values)
            )
            if self.finished is not None and "status" in values and result.rowcount == 1:  # type: ignore[attr-defined]
                status, error = values["status"], values["last_error"]
                await self.finished(session, item.id, item.kind, item.payload, status, error)

    async def run_until_idle(self) -> int:
        """Deliver until nothing is due, every channel on its own; answers how many rows were attempted."""
        return sum(await asyncio.gather(*(self.drain(channel) for channel in self.channels)))

    async def drain(self, channel: str) -> int:
        """Sends `channel`'s due rows, at most `worker_batch_size` at once, claiming more whenever one
        finishes (or every poll interval while all are busy): one slow send never holds the others."""
        attempted = 0
        running: set[asyncio.Task[None]] = set()
        try:
            while True:
                room = self.settings.worker_batch_size - len(running)
                batch = await self._claim_more(channel, room, running)
                running.update(asyncio.create_task(self.deliver(item)) for item in batch)
                attempted += len(batch)
                if not running:
                    return attempted
                done, running = await asyncio.wait(
                    running, timeout=self.settings.worker_poll_interval, return_when=asyncio.FIRST_COMPLETED
                )
                for task in done:
                    if task.exception() is not None:
                        # Not recorded (database away): the lease runs out and the row comes back.
                        log.error("outbox outcome not recorded: %r", task.exception())
        finally:
            for task in running:
                task.cancel()

    async def _claim_more(self, channel: str, room: int, running: set[asyncio.Task[None]]) -> list[Claimed]:
        if room <= 0 or self._stop.is_set():
            return []
        try:
            return await self.claim_batch(channel, room)
        except Exception:
            if not running:
                raise
            # The database failed us for a moment: the sends in flight carry on, the next claim retries.
            log.warning("outbox %s: claiming more failed; retrying", channel, exc_info=True)
            return []

    async def run_daily(self) -> None:
        """The daily job, once per UTC day per process (the job itself is exactly-once per alert)."""
        today = utc_today()
        if self.daily is None or self._daily_done_on == today:
            return
        await self.daily()
        self._daily_done_on = today

    async def run_pruning(self) -> None:
        """Outbox retention (app.outbox.retention), at most once per PRUNE_EVERY per process."""
        now = time.monotonic()
        if self._pruned_at is not None and now - self._pruned_at < PRUNE_EVERY:
            return
        removed = await prune_outbox(self.sessionmaker, self.settings)
        self._pruned_at = now
        if removed:
            log.info("outbox: deleted %s rows past their retention", removed)

    async def run_forever(self) -> None:
        """Each channel delivers, then sleeps until woken by a commit, the poll interval, or stop(); the
        daily job runs beside them."""
        lanes = [
            asyncio.create_task(self._lane(channel), name=f"outbox-{channel}") for channel in self.channels
        ]
        lanes += [
            asyncio.create_task(self._every(seconds, job), name=f"worker-job-{number}")
            for number, (seconds, job) in enumerate(self.periodic)
        ]
        try:
            while True:
                try:
                    await self.run_daily()
                    await self.run_pruning()
                except Exception:  # the database may be away for a moment; keep the loop alive
                    log.exception("outbox daily job failed; retrying after the poll interval")
                if not await pause(self._stop, max(self.settings.worker_poll_interval, 60)):
                    break
            await asyncio.gather(*lanes)  # stop(): each lane ends after the sends it has in flight
        finally:
            for lane in lanes:
                lane.cancel()
            await asyncio.gather(*lanes, return_exceptions=True)

    async def _every(self, seconds: float, job: Callable[[], Awaitable[object]]) -> None:
        """A periodic job (the deadline breach job): run, then wait `seconds` or until stop()."""
        while not self._stop.is_set():
            try:
                await job()
            except Exception:  # the database may be away for a moment; the next round retries
                log.exception("worker job failed; retrying in %s seconds", seconds)
            if not await pause(self._stop, seconds):
                break

    async def _lane(self, channel: str) -> None:
        wake = asyncio.Event()
        self._lane_wakes.add(wake)
        try:
            while not self._stop.is_set():
                wake.clear()
                try:
                    await self.drain(channel)
                except Exception:
                    log.exception("outbox %s channel round failed; retrying after the poll interval", channel)
                await pause(wake, self.settings.worker_poll_interval)
        finally:
            self._lane_wakes.discard(wake)
