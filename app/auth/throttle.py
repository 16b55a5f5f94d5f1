"""Throttles over a sliding window, counted in the database so every process sees the same counts.

A request is counted before it is served, in a short transaction of its own that also checks the limit:
on PostgreSQL an advisory lock per key makes check-and-count one step (twenty parallel guesses count
twenty, and at most `limit` of them get through); on SQLite the transaction's write lock does the same.
The count is committed before the work it guards (a password hash) starts, so no lock is held meanwhile.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta

from fastapi import Request
from sqlalchemy import delete, func, insert, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.core.clock import utc_now
from app.core.metrics import series
from app.errors import TooManyRequests
from app.models import ThrottleHit


@dataclass(frozen=True)
class Limit:
    bucket: str
    limit: int
    window: timedelta
    message: str


@dataclass(frozen=True)
class Limits:
    """Every throttle of the service, from the settings (defaults: docs/api.md §3)."""

    login_email: Limit
    login_client: Limit
    password_forgot: Limit
    register: Limit

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        login_window = timedelta(seconds=settings.login_failure_window)
        sign_in = "Too many failed sign-ins; try again later."
        return cls(
            login_email=Limit("login_email", settings.login_max_failures_per_email, login_window, sign_in),
            login_client=Limit("login_client", settings.login_max_failures_per_client, login_window, sign_in),
            password_forgot=Limit(
                "password_forgot",
                settings.password_forgot_max_per_client,
                timedelta(seconds=settings.password_forgot_window),
                "Too many password reset requests from this address; try again later.",
            ),
            register=Limit(
                "register",
                settings.register_max_per_client,
                timedelta(seconds=settings.register_window),
                "Too many registrations from this address; try again later.",
            ),
        )


@dataclass
class Counted:
    """What one counted request recorded: the session of its transaction and the ids of its hits."""

    session: AsyncSession
    hit_ids: list[int]


class Throttle:
    def __init__(self, sessionmaker: async_sessionmaker[AsyncSession], settings: Settings) -> None:
        self.sessionmaker = sessionmaker
        self.limits = Limits.of(settings)

    @asynccontextmanager
    async def counting(self, *checks: tuple[Limit, str]) -> AsyncIterator[Counted]:
        """Count one request against each (limit, key): 429 with Retry-After when any is at its limit
        (nothing counted then), else one hit each. The transaction commits when the block ends; reads
        done in the block share it."""
        async with self.sessionmaker() as session, session.begin():
            await _lock(session, [f"{limit.bucket}:{key}" for limit, key in checks])
            for limit, key in checks:
                await _refuse_when_full(session, limit, key)
            hit_ids = []
            for limit, key in checks:
                await _prune(session, limit, key)
                statement = insert(ThrottleHit).values(bucket=limit.bucket, key=key, created_at=utc_now())
                hit_ids.append((await session.execute(statement.returning(ThrottleHit.id))).scalar_one())
            yield Counted(session, hit_ids)

    async def hit(self, limit: Limit, key: str) -> None:
        """Count one request (429 when the key is at its limit)."""
        async with self.counting((limit, key)):
            pass

    async def take_back(
        self, session: AsyncSession, hit_ids: Sequence[int], *cleared: tuple[Limit, str]
    ) -> None:
        """A request that turned out well: its hits no longer count, nor do the `cleared` keys' hits (in
        the caller's transaction)."""
        await session.execute(delete(ThrottleHit).where(ThrottleHit.id.in_(hit_ids)))
        for limit, key in cleared:
            await session.execute(
                delete(ThrottleHit).where(ThrottleHit.bucket == limit.bucket, ThrottleHit.key == key)
            )


async def _lock(session: AsyncSession, names: list[str]) -> None:
    """PostgreSQL: one transaction-scoped advisory lock per key, taken in one order (no deadlocks).
    SQLite: the transaction already holds the database's write lock (BEGIN IMMEDIATE)."""
    if session.get_bind().dialect.name != "postgresql":
        return
    for name in sorted(set(names)):
        await session.execute(select(func.pg_advisory_xact_lock(func.hashtextextended(name, 0))))


async def _refuse_when_full(session: AsyncSession, limit: Limit, key: str) -> None:
    # The newest `limit` hits: once the oldest of them leaves the window, a request is allowed again.
    since = utc_now() - limit.window
    recent = (
        await session.scalars(
            select(ThrottleHit.created_at)
            .where(ThrottleHit.bucket == limit.bucket, ThrottleHit.key == key, ThrottleHit.created_at > since)
            .order_by(ThrottleHit.created_at.desc())
            .limit(limit.limit)
        )
    ).all()
    if len(recent) >= limit.limit:
        series().throttled.labels(limit.bucket).inc()
        wait = math.ceil((recent[-1] + limit.window - utc_now()).total_seconds())
        raise TooManyRequests(wait, limit.message)


async def _prune(session: AsyncSession, limit: Limit, key: str) -> None:
    """Hits that left the window count no more: this key's, and a few of the bucket's others (keys that
    never come back), so the table stays as small as the traffic of one window."""
    since = utc_now() - limit.window
    stale = (
        select(ThrottleHit.id)
        .where(ThrottleHit.bucket == limit.bucket, ThrottleHit.created_at <= since)
        .order_by(ThrottleHit.created_at)
        .limit(100)
        .with_for_update(skip_locked=True)  # PostgreSQL: rows another pruner holds are left to it
        .scalar_subquery()
    )
    await session.execute(delete(ThrottleHit).where(ThrottleHit.id.in_(stale)))


async def get_throttle(request: Request) -> Throttle:
    state = request.app.state
    return Throttle(state.sessionmaker, state.settings)
