"""Several processes on one PostgreSQL: LISTEN on the process's own asyncpg connection (not the pool).

The connection is watched (termination callback and a periodic `SELECT 1`); when it drops, it is opened
again, retrying at least every second and at once when the app's pool connects again (`kick`), and the
reader is woken to catch up from the table: nothing committed meanwhile is lost.
While it is up, the tail reads the announced rows on it too (`read_after`): one round trip on a connection
already held, where a pooled session costs a checkout and its own round trips around the same SELECT.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import asyncpg
from sqlalchemy.engine import make_url

from app.realtime.publishing import NOTIFY_CHANNEL, StoredEvent
from app.realtime.tail import EventTail

Wake = Callable[[], None]

logger = logging.getLogger("warranty.realtime")

CHANNEL = NOTIFY_CHANNEL
APPLICATION_NAME = "warranty-listener"
# app.realtime.history.all_after, as one prepared statement on the listening connection.
READ_AFTER = "SELECT id, topic, payload FROM events WHERE id > $1 ORDER BY id LIMIT $2"


def asyncpg_dsn(database_url: str) -> str:
    """`postgresql+asyncpg://...` (SQLAlchemy) -> `postgresql://...` (asyncpg)."""
    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


class PostgresBackend:
    def __init__(self, database_url: str, *, health_interval: float = 5.0, max_backoff: float = 1.0) -> None:
        self._dsn = asyncpg_dsn(database_url)
        self._health_interval = health_interval
        self._max_backoff = max_backoff
        self._task: asyncio.Task[None] | None = None
        self._connection: asyncpg.Connection | None = None
        self._busy = asyncio.Lock()  # one query at a time on the connection: reads and health checks
        self.connected = asyncio.Event()  # set while listening (tests wait on it)
        self._retry_now = asyncio.Event()  # the database answered someone else: stop backing off
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def server_pid(self) -> int | None:
        """The listening connection's backend pid (what pg_stat_activity shows), while connected."""
        connection = self._connection
        return connection.get_server_pid() if connection is not None and not connection.is_closed() else None

    def kick(self) -> None:
        """The database is reachable again (the pool just connected): reconnect now, not at the next
        backoff step. Safe from any thread; nothing happens while listening."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._retry_now.set)

    async def start(self, tail: EventTail) -> None:
        self._loop = asyncio.get_running_loop()
        tail.reader = self.read_after
        self._task = asyncio.create_task(self._supervise(tail.wake), name="warranty-listener")

    async def read_after(self, after: int, limit: int) -> list[StoredEvent] | None:
        """The events above `after` (oldest first) read on the listening connection; None while it is
        down or when the read fails (the tail then reads through the pool)."""
        connection = self._connection
        if connection is None or connection.is_closed():
            return None
        try:
            async with self._busy:
                rows = await connection.fetch(READ_AFTER, after, limit)
        except Exception:  # the watch notices a dead connection; this read falls back meanwhile
            logger.debug("hub: reading on the listener connection failed", exc_info=True)
            return None
        return [StoredEvent(row["id"], row["topic"], row["payload"]) for row in rows]

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self._close()

    async def _supervise(self, wake: Wake) -> None:
        backoff = 0.5
        while True:
            lost = asyncio.Event()
            try:
                await self._listen(wake, lost)
                backoff = 0.5
                wake()  # catch up on whatever was committed while not listening
                await self._watch(lost)
            except Exception as error:  # any connection failure: reconnect
                logger.warning("hub: listener connection failed (%s); retrying in %.1fs", error, backoff)
            self.connected.clear()
            await self._close()
            # At most `max_backoff` (1 s): a refused connection costs nothing, and a listener that waits
            # long after the database is back holds every live event back.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(backoff):
                    await self._retry_now.wait()
            self._retry_now.clear()
            backoff = min(self._max_backoff, backoff * 2)

    async def _listen(self, wake: Wake, lost: asyncio.Event) -> None:
        connection = await asyncpg.connect(
            self._dsn, timeout=10, server_settings={"application_name": APPLICATION_NAME}
        )
        self._connection = connection

        def on_notify(*_args: Any) -> None:
            wake()

        connection.add_termination_listener(lambda _conn: lost.set())
        await connection.add_listener(CHANNEL, on_notify)
        self.connected.set()
        logger.info("hub: listening on %s", CHANNEL)

    async def _watch(self, lost: asyncio.Event) -> None:
        """Returns when the connection is gone: the termination callback, or a failed health check."""
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._health_interval):
                    await lost.wait()
            if lost.is_set() or self._connection is None or self._connection.is_closed():
                logger.warning("hub: listener connection lost")
                return
            async with self._busy, asyncio.timeout(self._health_interval):
                await self._connection.fetchval("SELECT 1")

    async def _close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None and not connection.is_closed():
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2):
                    await connection.close()
        if connection is not None and not connection.is_closed():
            connection.terminate()
