"""Hands each committed event to the hub exactly once, in id order.

Event ids follow commit order (migration 0006 on PostgreSQL; SQLite's writers commit one at a time), so
when an id is visible every lower id is visible too or never will be: reading "everything above the
highest id delivered" never misses an event that commits later, and the tail never waits on a gap.

Two ways in: `accept(events)` (one process: the after-commit hook passes the events themselves, no
query), and `wake()` (a NOTIFY from any process, a reconnect): then it reads "everything above what I
have" from the table, so a missed wake-up loses nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.realtime.history import all_after, newest_id
from app.realtime.publishing import StoredEvent

logger = logging.getLogger("warranty.realtime")

BATCH = 500
MAX_BACKOFF = 1.0  # seconds between tries while the database is away: it must catch up soon after

# (after, limit) -> the events above `after`, oldest first; None when it cannot read now.
Reader = Callable[[int, int], Awaitable[list[StoredEvent] | None]]


class EventTail:
    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        deliver: Callable[[list[StoredEvent]], None],
    ) -> None:
        self._sessionmaker = sessionmaker
        self._deliver = deliver
        self._wake = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._watermark = 0  # the highest id delivered: every lower one is delivered or never will be
        self._prepared = False
        self._stopping = False
        self.reader: Reader | None = None  # a cheaper way to read than a pooled session (the backend's)

    @property
    def watermark(self) -> int:
        """Every event up to this id has been handed to the hub already."""
        return self._watermark

    def wake(self) -> None:
        """Safe from any thread and from SQLAlchemy's after-commit hook."""
        self._loop.call_soon_threadsafe(self._wake.set)

    def stop(self) -> None:
        """Ends `run` after its current read (never in the middle of one)."""
        self._stopping = True
        self._wake.set()

    def accept(self, events: list[StoredEvent]) -> None:
        """Committed events handed over directly (after-commit hook, one process on SQLite). They come in
        commit order: a writer takes the write lock at BEGIN, so the next one cannot even write before
        this one's commit has returned and run its hook. Ids may skip (AUTOINCREMENT after deletes)."""
        fresh = [event for event in events if event.id > self._watermark]
        if fresh:
            self._deliver(fresh)
            self._watermark = fresh[-1].id

    async def prepare(self) -> bool:
        """Starts after the newest committed event: older ones are history, served by replay."""
        if not self._prepared:
            async with self._sessionmaker() as session:
                self._watermark = await newest_id(session) or 0
            self._prepared = True
        return self._prepared

    async def run(self) -> None:
        failures = 0
        while not self._stopping:  # the app starts even while the database is down (readiness says so)
            try:
                await self.prepare()
                break
            except Exception:
                failures += 1
                logger.warning("hub: database not reachable; retrying", exc_info=failures == 1)
                await asyncio.sleep(min(MAX_BACKOFF, 0.1 * 2**failures))
        failures = 0
        while not self._stopping:
            await self._wake.wait()
            self._wake.clear()
            if self._stopping:
                return
            try:
                await self.read()
                failures = 0
            except Exception:
                failures += 1
                logger.exception("hub: reading new events failed; retrying")
                await asyncio.sleep(min(MAX_BACKOFF, 0.1 * 2**failures))
                self._wake.set()

    async def read(self) -> None:
        """Delivers every committed event not delivered yet."""
        while True:
            events = await self._read(self._watermark)
            # `accept` may have delivered some while this read was under way.
            fresh = [event for event in events if event.id > self._watermark]
            if fresh:
                self._deliver(fresh)
                self._watermark = fresh[-1].id
            if len(events) < BATCH:
                return

    async def _read(self, after: int) -> list[StoredEvent]:
        if self.reader is not None:
            events = await self.reader(after, BATCH)
            if events is not None:
                return events
        async with self._sessionmaker() as session:
            return await all_after(session, after, BATCH)
