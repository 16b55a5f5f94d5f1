"""Hands each committed event to the hub exactly once, in id order as far as commits allow.

Two ways in: `accept(events)` (one process: the after-commit hook passes the events themselves, no
query), and `wake()` (a NOTIFY from any process, a reconnect): then it reads "everything above what I
have" from the table, so a missed wake-up loses nothing. On PostgreSQL two
transactions may commit out of id order: an id missing below the newest one seen is a gap that is
watched for `gap_grace` seconds (it may still commit) before it is taken for a rollback.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.realtime.events import StoredEvent
from app.realtime.history import all_after, newest_id

logger = logging.getLogger("warranty.realtime")

BATCH = 500
MAX_GAPS = 1000

# (after, limit) -> the events above `after`, oldest first; None when it cannot read now.
Reader = Callable[[int, int], Awaitable[list[StoredEvent] | None]]


class EventTail:
    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        deliver: Callable[[list[StoredEvent]], None],
        *,
        gap_grace: float = 30.0,
        poll_interval: float = 1.0,
    ) -> None:
        self._sessionmaker = sessionmaker
        self._deliver = deliver
        self._gap_grace = gap_grace
        self._poll_interval = poll_interval
        self._wake = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._watermark = 0  # every id up to here is delivered or given up
        self._seen: set[int] = set()  # delivered ids above the watermark
        self._gaps: dict[int, float] = {}  # missing id -> when first noticed
        self._prepared = False
        self._stopping = False
        self.reader: Reader | None = None  # a cheaper way to read than a pooled session (the backend's)

    @property
    def watermark(self) -> int:
        """Every event up to this id has been handed to the hub already (or given up as a rollback)."""
        return self._watermark

    def wake(self) -> None:
        """Safe from any thread and from SQLAlchemy's after-commit hook."""
        self._loop.call_soon_threadsafe(self._wake.set)

    def stop(self) -> None:
        """Ends `run` after its current read (never in the middle of one)."""
        self._stopping = True
        self._wake.set()

    def accept(self, events: list[StoredEvent]) -> None:
        """Committed events handed over directly (after-commit hook, same process)."""
        fresh = [event for event in events if event.id > self._watermark and event.id not in self._seen]
        if fresh:
            self._deliver(fresh)
        self._advance([event.id for event in events])

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
                await asyncio.sleep(min(30.0, 0.5 * 2**failures))
        failures = 0
        while not self._stopping:
            timeout = self._poll_interval if self._gaps else None
            try:
                async with asyncio.timeout(timeout):
                    await self._wake.wait()
            except TimeoutError:
                pass
            self._wake.clear()
            if self._stopping:
                return
            try:
                await self.read()
                failures = 0
            except Exception:
                failures += 1
                logger.exception("hub: reading new events failed; retrying")
                await asyncio.sleep(min(30.0, 0.5 * 2**failures))
                self._wake.set()

    async def read(self) -> None:
        """Delivers every committed event not delivered yet."""
        cursor = self._watermark
        while True:
            events = await self._read(cursor)
            if events:
                cursor = events[-1].id
            fresh = [event for event in events if event.id not in self._seen]
            if fresh:
                self._deliver(fresh)
            self._advance([event.id for event in events])
            if len(events) < BATCH:
                return

    async def _read(self, after: int) -> list[StoredEvent]:
        if self.reader is not None:
            events = await self.reader(after, BATCH)
            if events is not None:
                return events
        async with self._sessionmaker() as session:
            return await all_after(session, after, BATCH)

    def _advance(self, ids: list[int]) -> None:
        now = self._loop.time()
        self._seen.update(ids)
        top = max(self._seen, default=self._watermark)
        # Only recent ids can still commit; a long run of missing ids (sequence jumps) is not tracked.
        for missing in range(max(self._watermark + 1, top - MAX_GAPS), top):
            if missing not in self._seen:
                self._gaps.setdefault(missing, now)
        for gap in [
            gap for gap, since in self._gaps.items() if gap in self._seen or now - since > self._gap_grace
        ]:
            del self._gaps[gap]
        self._watermark = min(self._gaps) - 1 if self._gaps else top
        self._seen = {seen for seen in self._seen if seen > self._watermark}
