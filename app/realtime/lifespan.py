"""Starts and stops the real-time hub with the app: the hub, the tail reader, the backend that wakes it,
history pruning, and the watch that ends open streams when the server is asked to stop."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.core.background import finish, pause
from app.core.db import CommitHooks
from app.realtime.backends import Backend
from app.realtime.backends.memory import MemoryBackend
from app.realtime.backends.postgres import PostgresBackend
from app.realtime.history import prune
from app.realtime.hub import Hub
from app.realtime.shutdown import server_exit_flag, watch_exit
from app.realtime.stream_clock import clock_forever
from app.realtime.sweep import AccessWatch, sweep_forever
from app.realtime.tail import EventTail

logger = logging.getLogger("warranty.realtime")

PRUNE_INTERVAL = 3600.0  # seconds
# Young-generation GC threshold while the hub runs (Python's default is 700). A fan-out allocates a few
# short-lived objects per subscriber, so with the default a collection ran every couple of hundred
# subscribers, caught the futures of the streams already served still alive and promoted them; they
# then brought on full collections, whose pauses grow with the number of open streams (about 0.25 s
# every five events with 10,000 streams). Cyclic garbage is collected a little later; nothing else
# changes.
GC_YOUNG_THRESHOLD = 50_000


@asynccontextmanager
async def hub_lifespan(app: FastAPI, settings: Settings, hooks: CommitHooks) -> AsyncIterator[None]:
    hub = Hub(settings.sse_queue_size, settings.sse_max_streams_per_user)
    gc_thresholds = gc.get_threshold()
    gc.set_threshold(max(GC_YOUNG_THRESHOLD, gc_thresholds[0]), *gc_thresholds[1:])
    app.state.hub = hub
    sessionmaker: async_sessionmaker[AsyncSession] = app.state.sessionmaker
    # The tail and the access sweep only read: no write lock on SQLite, no BEGIN/COMMIT on PostgreSQL.
    reads: async_sessionmaker[AsyncSession] = app.state.read_sessionmaker
    watch_access = AccessWatch(hub, reads)
    tail = EventTail(reads, watch_access.deliver)
    app.state.hub_tail = tail
    # At startup, not in the background, when the database is up; else the tasks retry.
    with contextlib.suppress(Exception):
        await _prune(sessionmaker, settings.event_retention_hours)
        await tail.prepare()
    # PostgreSQL: delivery only through the table reader woken by NOTIFY (any process); SQLite: only the
    # after-commit hook. Never both, so nothing is delivered twice.
    backend: Backend = MemoryBackend(hooks) if settings.is_sqlite else PostgresBackend(settings.database_url)
    app.state.hub_backend = backend
    if isinstance(backend, PostgresBackend):
        # A new pooled connection means the database answers: the listener reconnects now.
        event.listen(app.state.engine.sync_engine, "connect", _kicker(backend))
    stop = asyncio.Event()
    tasks = [
        asyncio.create_task(tail.run(), name="hub-tail"),
        asyncio.create_task(
            _prune_forever(sessionmaker, settings.event_retention_hours, stop), name="hub-prune"
        ),
        asyncio.create_task(
            sweep_forever(hub, reads, settings.sse_reauthorize_interval, stop), name="hub-access-sweep"
        ),
        asyncio.create_task(clock_forever(hub, settings.sse_heartbeat, stop), name="hub-clock"),
    ]
    should_exit = server_exit_flag()
    app.state.server_exit = should_exit
    watch = (
        asyncio.create_task(watch_exit(should_exit, hub.close), name="hub-exit-watch")
        if should_exit is not None
        else None
    )
    # No read now: the watermark was just read; the PostgreSQL backend wakes the reader once listening.
    await backend.start(tail)
    try:
        yield
    finally:
        app.state.draining = True
        hub.close()
        await backend.stop()
        if watch is not None:
            watch.cancel()
        # The loops that query stop between two reads; cancelled only if one hangs.
        stop.set()
        tail.stop()
        watch_access.stop()
        await finish(tasks, within=10.0)
        gc.set_threshold(*gc_thresholds)


def _kicker(backend: PostgresBackend) -> Callable[..., None]:
    def kick(*_args: Any) -> None:
        backend.kick()

    return kick


async def _prune(sessionmaker: async_sessionmaker[AsyncSession], retention_hours: int) -> None:
    """History is kept `retention_hours` (at least 24)."""
    async with sessionmaker() as session, session.begin():
        removed = await prune(session, max(24, retention_hours))
    if removed:
        logger.info("hub: pruned %s events older than %s hours", removed, retention_hours)


async def _prune_forever(
    sessionmaker: async_sessionmaker[AsyncSession], retention_hours: int, stop: asyncio.Event
) -> None:
    while await pause(stop, PRUNE_INTERVAL):
        try:
            await _prune(sessionmaker, retention_hours)
        except Exception:
            logger.exception("hub: pruning the event history failed")
