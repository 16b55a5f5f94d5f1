"""The outbox's gauges (app.metrics.outbox_backlog): pending and failed rows and the oldest pending row's
age, read at scrape time in one statement; nothing when the database cannot say."""

from __future__ import annotations

import logging
from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine

from app.core.clock import frozen_time, utc_now
from app.metrics.outbox_backlog import Backlog, read_backlog
from app.models import OutboxItem
from tests.helpers import count_queries
from tests.metrics.scrape import scrape, value


async def test_the_outbox_backlog_in_one_query(client: httpx.AsyncClient, app: FastAPI) -> None:
    now = utc_now()
    async with app.state.sessionmaker() as session, session.begin():
        for status, age in (("pending", 120), ("pending", 5), ("failed", 999), ("done", 5000)):
            created = now - timedelta(seconds=age)
            session.add(OutboxItem(kind="email.x", payload={}, status=status, created_at=created))
    with count_queries(app) as statements:
        samples = await scrape(client)
    assert len(statements) == 1
    assert value(samples, "warranty_outbox_pending") == 2
    assert value(samples, "warranty_outbox_failed") == 1
    assert 120 <= value(samples, "warranty_outbox_oldest_pending_age_seconds") < 180


async def test_nothing_pending_is_zero_everywhere(app: FastAPI) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        session.add(
            OutboxItem(kind="email.x", payload={}, status="done", created_at=utc_now() - timedelta(days=9))
        )
    assert await read_backlog(app.state.sessionmaker) == Backlog(pending=0, failed=0, oldest_pending_age=0.0)


async def test_the_age_is_that_of_the_oldest_pending_row_never_below_zero(app: FastAPI) -> None:
    now = utc_now()
    async with app.state.sessionmaker() as session, session.begin():
        for status, age in (("pending", 30), ("pending", 300), ("failed", 9000), ("failed", 1)):
            session.add(
                OutboxItem(kind="email.x", payload={}, status=status, created_at=now - timedelta(seconds=age))
            )
    with frozen_time(now):
        assert await read_backlog(app.state.sessionmaker) == Backlog(
            pending=2, failed=2, oldest_pending_age=300
        )
    with frozen_time(now - timedelta(hours=1)):  # a clock behind the rows' (another host's)
        assert (await read_backlog(app.state.sessionmaker)) == Backlog(
            pending=2, failed=2, oldest_pending_age=0
        )


async def test_a_database_that_cannot_answer_gives_no_backlog(
    caplog: pytest.LogCaptureFixture,
) -> None:
    engine = create_async_engine("sqlite+aiosqlite:////nonexistent-folder/warranty.db")
    caplog.set_level(logging.WARNING, logger="warranty.metrics")
    try:
        assert await read_backlog(async_sessionmaker(engine)) is None
    finally:
        await engine.dispose()
    assert "reading the outbox backlog failed" in caplog.text


def test_the_backlog_is_three_gauges() -> None:
    families = {
        family.name: family for family in Backlog(pending=3, failed=1, oldest_pending_age=12.5).collect()
    }
    assert {name: family.type for name, family in families.items()} == {
        "warranty_outbox_pending": "gauge",
        "warranty_outbox_failed": "gauge",
        "warranty_outbox_oldest_pending_age_seconds": "gauge",
    }
    assert [family.samples[0].value for family in families.values()] == [3, 1, 12.5]
