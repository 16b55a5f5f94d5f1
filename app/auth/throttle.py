"""Throttles over a sliding window, counted in the database so every process sees the same counts.

A request is counted before it is served, in a short transaction of its own that also checks the limit:
on PostgreSQL an advisory lock per key makes check-and-count one step (twenty parallel guesses count
twenty, and at most `limit` of them get through); on SQLite the transaction's write lock does the same.
The count is committed before the work it guards (a password hash) starts, so no lock is held meanwhile.
A refused request counts too where its limit says so: an address's sign-in attempts, since a guess
answered 429 is a guess all the same, and an address that keeps guessing stays refused.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from fastapi import Request
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.core.clock import utc_now
from app.errors import TooManyRequests
from app.models import ThrottleHit
from app.observability.metrics import series


@dataclass(frozen=True)
class Limit:
    bucket: str
    limit: int
    window: timedelta
    message: str
    counts_refusals: bool = False  # a request this throttle (or another) refuses counts here too


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
            login_client=Limit(
                "login_client",
                settings.login_max_failures_per_client,
                login_window,
                sign_in,
                counts_refusals=True,
            ),
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
        """Count one request against each (limit, key): one hit each, in a transaction that commits when
        the block ends (reads done in the block share it). When any is at its limit: 429 with Retry-After
        instead, counted only by the limits that count refusals."""
        async with self.sessionmaker() as session:
            refusal = None
            async with session.begin():
                await _lock(session, [f"{limit.bucket}:{key}" for limit, key in checks])
                full = [(limit, key) for limit, key in checks if await _wait(session, limit, key)]
                if not full:
                    yield Counted(session, [await _count(session, limit, key) for limit, key in checks])
                else:
                    refusal = await _refuse(session, checks, full)
            if refusal is not None:
                raise refusal  # after the commit: the refusal's own count stays

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


async def _recent(session: AsyncSession, limit: Limit, key: str) -> list[tuple[int, datetime]]:
    """The key's newest `limit` hits in the window (id, time), newest first: once the oldest of them
    leaves the window, the key may be counted again."""
    since = utc_now() - limit.window
    rows = await session.execute(
        select(ThrottleHit.id, ThrottleHit.created_at)
        .where(ThrottleHit.bucket == limit.bucket, ThrottleHit.key == key, ThrottleHit.created_at > since)
        .order_by(ThrottleHit.created_at.desc())
        .limit(limit.limit)
    )
    return [(hit_id, created_at) for hit_id, created_at in rows]


async def _wait(session: AsyncSession, limit: Limit, key: str) -> int:
    """Seconds until the key may be counted again (0: now)."""
    recent = await _recent(session, limit, key)
    if len(recent) < limit.limit:
        return 0
    return max(1, math.ceil((recent[-1][1] + limit.window - utc_now()).total_seconds()))


async def _count(session: AsyncSession, limit: Limit, key: str) -> int:
    """One hit for the key; its id."""
    await _prune(session, limit, key)
    statement = insert(ThrottleHit).values(bucket=limit.bucket, key=key, created_at=utc_now())
    hit_id: int = (await session.execute(statement.returning(ThrottleHit.id))).scalar_one()
    return hit_id


async def _refuse(
    session: AsyncSession, checks: Sequence[tuple[Limit, str]], full: Sequence[tuple[Limit, str]]
) -> TooManyRequests:
    """A request refused by the `full` limits: counted by the limits that count refusals, answered with
    the wait those counts leave."""
    for limit, _key in full:
        series().throttled.labels(limit.bucket).inc()
    for limit, key in checks:
        if limit.counts_refusals:
            await _count_refused(session, limit, key)
    waits = [await _wait(session, limit, key) for limit, key in checks]
    return TooManyRequests(max(waits), full[0][0].message)


async def _count_refused(session: AsyncSession, limit: Limit, key: str) -> None:
    """A refused request as one more hit. At the limit, the key's oldest counted hit moves to now instead:
    the newest `limit` hits are then what one more would make them, and a key that keeps trying keeps
    only `limit` rows."""
    recent = await _recent(session, limit, key)
    if len(recent) < limit.limit:
        await _count(session, limit, key)
        return
    oldest_id = recent[-1][0]
    await session.execute(update(ThrottleHit).where(ThrottleHit.id == oldest_id).values(created_at=utc_now()))


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
