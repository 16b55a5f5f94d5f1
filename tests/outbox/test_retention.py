"""Outbox retention (12.9): delivered rows go after WARRANTY_OUTBOX_RETENTION_DAYS (7), failed ones after
30 days without an attempt; the worker prunes them, in bounded batches."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.core.clock import utc_now
from app.models import OutboxItem
from app.outbox.retention import prune_outbox
from app.outbox.worker import OutboxWorker
from tests.helpers import count_queries, wait_for


async def _row(app: FastAPI, status: str, *, done: float | None = None, attempted: float = 0) -> int:
    """A row of `status`, done `done` days ago, last (or next) attempt `attempted` days ago."""
    now = utc_now()
    async with app.state.sessionmaker() as session, session.begin():
        row = OutboxItem(
            kind="email.claim_message",
            payload={"messageId": 1, "recipientId": 1},
            status=status,
            attempts=1,
            next_attempt_at=now - timedelta(days=attempted),
            done_at=None if done is None else now - timedelta(days=done),
            created_at=now - timedelta(days=60),
        )
        session.add(row)
        await session.flush()
        return row.id


async def _ids(app: FastAPI) -> set[int]:
    async with app.state.sessionmaker() as session:
        return set(await session.scalars(select(OutboxItem.id)))


async def test_the_worker_deletes_delivered_rows_after_7_days_and_failed_ones_after_30(
    app: FastAPI, worker: OutboxWorker
) -> None:
    gone = {
        await _row(app, "done", done=7.1),
        await _row(app, "skipped", done=8),
        await _row(app, "failed", attempted=30.1),
    }
    kept = {
        await _row(app, "done", done=6.9),
        await _row(app, "skipped", done=1),
        await _row(app, "failed", attempted=29.9),
        await _row(app, "pending", attempted=-1),  # due tomorrow: never pruned, however old
    }
    running = asyncio.create_task(worker.run_forever())
    try:
        await wait_for(lambda: _pruned(app, gone))
    finally:
        worker.stop()
        await running
    assert await _ids(app) == kept


async def _pruned(app: FastAPI, gone: set[int]) -> bool:
    return not (await _ids(app)) & gone


async def test_a_retried_failed_row_counts_from_its_new_attempt(app: FastAPI) -> None:
    old = await _row(app, "failed", attempted=40)
    async with app.state.sessionmaker() as session, session.begin():
        row = await session.get(OutboxItem, old)
        assert row is not None
        row.status, row.next_attempt_at = "pending", utc_now()  # what the admin's retry does
    assert await prune_outbox(app.state.sessionmaker, app.state.settings) == 0
    assert await _ids(app) == {old}


async def test_pruning_goes_in_bounded_batches(app: FastAPI) -> None:
    expired = {await _row(app, "done", done=10) for _ in range(5)}
    recent = await _row(app, "done", done=0)
    with count_queries(app) as statements:
        removed = await prune_outbox(app.state.sessionmaker, app.state.settings, batch=2)
    assert removed == len(expired)
    assert await _ids(app) == {recent}
    assert len([s for s in statements if s.lstrip().upper().startswith("DELETE")]) == 3  # 2 + 2 + 1


@pytest.mark.settings(outbox_retention_days=1, outbox_failed_retention_days=2)
async def test_the_retention_is_a_setting(app: FastAPI) -> None:
    gone = {await _row(app, "done", done=1.1), await _row(app, "failed", attempted=2.1)}
    kept = {await _row(app, "done", done=0.9), await _row(app, "failed", attempted=1.9)}
    assert await prune_outbox(app.state.sessionmaker, app.state.settings) == len(gone)
    assert await _ids(app) == kept
