"""Starts and stops the outbox worker with the app (unless WARRANTY_RUN_WORKER=false, for deployments that
run `warranty worker` on its own)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from app.config import Settings
from app.notifications.delivery import build_worker
from app.notifications.outbox import OUTBOX_WAKE
from app.notifications.push import push_sender

STOP_GRACE = 10.0  # seconds a delivery in flight gets to finish at shutdown


@asynccontextmanager
async def worker_lifespan(
    app: FastAPI, settings: Settings, session_hooks: dict[str, Any]
) -> AsyncIterator[None]:
    if not settings.run_worker:
        yield
        return
    pusher = push_sender(settings)  # one HTTP client for the worker's lifetime
    worker = build_worker(settings, app.state.sessionmaker, app.state.storage, pusher=pusher)
    app.state.outbox_worker = worker
    session_hooks[OUTBOX_WAKE] = worker.wake
    task = asyncio.create_task(worker.run_forever(), name="outbox-worker")
    try:
        yield
    finally:
        session_hooks.pop(OUTBOX_WAKE, None)
        worker.stop()
        try:
            await asyncio.wait_for(task, timeout=STOP_GRACE)
        except TimeoutError:
            # Cancelled mid-delivery: the row's lease runs out and it is delivered again later.
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await pusher.aclose()
