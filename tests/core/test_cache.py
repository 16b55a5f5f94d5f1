"""The page cache's invalidation log: pruned to about one TTL, and pruning never serves a stale page."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fastapi import FastAPI
from sqlalchemy import func, select

from app.core.cache import PageCache, invalidate, prune
from app.core.clock import frozen_time
from app.models import CacheInvalidation


async def _rows(app: FastAPI) -> int:
    async with app.state.sessionmaker() as session:
        return int(await session.scalar(select(func.count()).select_from(CacheInvalidation)) or 0)


async def test_prune_drops_only_rows_older_than_the_window(app: FastAPI) -> None:
    then = datetime.now(UTC) - timedelta(hours=1)
    with frozen_time(then):
        async with app.state.sessionmaker() as session, session.begin():
            invalidate(session, "products:all", "users:all")
    async with app.state.sessionmaker() as session, session.begin():
        invalidate(session, "products:all")

    async with app.state.sessionmaker() as session, session.begin():
        await prune(session, timedelta(minutes=10))

    assert await _rows(app) == 1


async def test_a_pruned_log_makes_a_cached_page_be_computed_again_never_stale(app: FastAPI) -> None:
    cache = PageCache(ttl=300)
    computed: list[int] = []

    async def compute() -> int:
        computed.append(1)
        return len(computed)

    async with app.state.sessionmaker() as session, session.begin():
        invalidate(session, "products:all")
    async with app.state.sessionmaker() as session:
        assert await cache.get_or_compute(session, ["products:all"], "page", compute) == 1
        assert await cache.get_or_compute(session, ["products:all"], "page", compute) == 1  # cached
    async with app.state.sessionmaker() as session, session.begin():
        await prune(session, timedelta(seconds=-1))  # everything
    async with app.state.sessionmaker() as session:
        assert await cache.get_or_compute(session, ["products:all"], "page", compute) == 2
