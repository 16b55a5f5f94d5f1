"""The page cache: list pages kept in process memory for WARRANTY_CACHE_TTL seconds, and never served
stale.

Writes record the scopes they change in `cache_invalidations` (in their own transaction, see
`invalidate`). A cached page remembers the newest invalidation id of its scopes when it was computed; one
indexed query per read compares that with the newest id now. So a change is visible on the very next
request, in every process that shares the database.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request
from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.background import pause
from app.core.clock import utc_now
from app.models import CacheInvalidation

T = TypeVar("T")
logger = logging.getLogger("warranty.cache")

# A scope every version check includes: invalidating it empties every page (e.g. a user deleted).
EVERYTHING = "all"


@dataclass
class _Entry:
    value: Any
    version: int | None
    expires_at: float


class PageCache:
    def __init__(self, ttl: float, max_entries: int = 10_000) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()

    async def get_or_compute(
        self, session: AsyncSession, scopes: Iterable[str], key: Hashable, compute: Callable[[], Awaitable[T]]
    ) -> T:
        """The cached value for `key` if none of `scopes` changed since it was computed, else `compute()`."""
        if self.ttl <= 0:
            return await compute()
        # Read the version before the data: a change committed in between makes the entry look stale
        # (computed again next time), never fresh.
        version = await current_version(session, scopes)
        now = time.monotonic()
        entry = self._entries.get(key)
        if entry is not None and entry.version == version and entry.expires_at > now:
            self._entries.move_to_end(key)
            return entry.value
        value = await compute()
        self._entries[key] = _Entry(value, version, now + self.ttl)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
        return value

    def clear(self) -> None:
        self._entries.clear()


async def current_version(session: AsyncSession, scopes: Iterable[str]) -> int | None:
    names = [*scopes, EVERYTHING]
    return await session.scalar(
        select(func.max(CacheInvalidation.id)).where(CacheInvalidation.scope.in_(names))
    )


def invalidate(session: AsyncSession, *scopes: str) -> None:
    """Record, in the caller's transaction, that pages of these scopes changed."""
    session.add_all(CacheInvalidation(scope=scope) for scope in set(scopes))


async def prune(session: AsyncSession, older_than: timedelta) -> None:
    """Drop invalidations older than the TTL: every page computed before them has expired anyway.
    (A page remembers the newest id of its scopes; a pruned row can only make that id differ, and so
    make the page be computed again, never serve it stale.)"""
    await session.execute(
        delete(CacheInvalidation).where(CacheInvalidation.created_at < utc_now() - older_than)
    )


async def prune_forever(
    sessionmaker: async_sessionmaker[AsyncSession], ttl: float, stop: asyncio.Event
) -> None:
    """Keeps the invalidation log about one TTL long, whatever the write rate (every process may run it)."""
    keep = timedelta(seconds=2 * max(ttl, 1))
    while await pause(stop, max(ttl, 60)):
        try:
            async with sessionmaker() as session, session.begin():
                await prune(session, keep)
        except Exception:
            logger.warning(
                "page cache: pruning the invalidation log failed; trying again later", exc_info=True
            )


async def get_page_cache(request: Request) -> PageCache:
    cache: PageCache = request.app.state.page_cache
    return cache


PageCacheDep = Annotated[PageCache, Depends(get_page_cache)]
