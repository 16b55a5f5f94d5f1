"""The page cache: list pages kept in process memory as the JSON bytes sent, for WARRANTY_CACHE_TTL seconds,
and never served stale.

Writes record the scopes they change in `cache_invalidations` (in their own transaction, see
`invalidate`). A cached page remembers the newest invalidation id of its scopes when it was computed, and
the caller's roles. A repeated request is answered before routing (app.pagecache.cached_pages) after one
statement that reads both again: the same id and the same roles, and the stored bytes go out as they are. So a
change is visible on the very next request, in every process that shares the database.

Pages are keyed by path, query string and caller; before routing, the caller is known from a token
verified before (app.core.security), so a hit needs no token verification.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from sqlalchemy import Engine, Select, bindparam, delete, func, select, union_all
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.util import greenlet_spawn
from starlette.types import Scope

from app.core.background import pause
from app.core.clock import utc_now, utc_today
from app.models import CacheInvalidation, User

logger = logging.getLogger("warranty.cache")

# A scope every version check includes: invalidating it empties every page (e.g. a user deleted).
EVERYTHING = "all"

PageKey = tuple[str, bytes, int]  # path, query string, user id

_invalidations = CacheInvalidation.__table__.c
_users = User.__table__.c


@functools.cache
def _version_statement(scope_count: int) -> Select[Any]:
    """The newest invalidation id of `scope_count` scopes, one index lookup per scope. (`max(id) WHERE
    scope IN (...)` is planned as a backward scan of the whole log, row by row, when the scopes are quiet.)"""
    newest = [
        select(func.max(_invalidations.id).label("id")).where(_invalidations.scope == bindparam(f"scope_{n}"))
        for n in range(scope_count)
    ]
    per_scope = union_all(*newest).subquery()
    return select(func.max(per_scope.c.id))


@functools.cache
def _freshness_statement(scope_count: int) -> Select[Any]:
    """The caller's roles and the scopes' version: whether a cached page still holds, in one round trip."""
    version = _version_statement(scope_count).scalar_subquery()
    return select(_users.roles, _users.credential_version, version).where(_users.id == bindparam("user_id"))


def _scope_parameters(scopes: list[str]) -> dict[str, str]:
    return {f"scope_{n}": scope for n, scope in enumerate(scopes)}


def _first_row(engine: Engine, statement: Select[Any], parameters: dict[str, Any]) -> Any:
    # Connect, execute and return the connection in one hop onto the event loop rather than three: the
    # freshness check runs on every cache hit.
    with engine.connect() as connection:
        return connection.execute(statement, parameters).first()


@dataclass(slots=True)
class CachedPage:
    body: bytes
    roles: list[str]
    scopes: list[str]
    version: int | None
    day: date  # warranty statuses are computed for a day: tomorrow's pages are other pages
    expires_at: float  # time.monotonic()
    headers: dict[str, str] = field(default_factory=dict)  # computed with the body (e.g. `Link`)
    route: str = ""  # the template of the route that computed it: a hit is counted under it


@dataclass(slots=True)
class PageState:
    """What a cached page depends on besides its data: the caller's roles and its scopes' version."""

    roles: list[str]
    credential_version: int
    version: int | None


def page_key(scope: Scope, user_id: int) -> PageKey:
    return (scope["path"], scope["query_string"], user_id)


class PageCache:
    def __init__(self, ttl: float, max_entries: int = 10_000) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._pages: OrderedDict[PageKey, CachedPage] = OrderedDict()

    def get(self, key: PageKey) -> CachedPage | None:
        """The page stored under `key` if neither its TTL nor its day has run out."""
        page = self._pages.get(key)
        if page is None:
            return None
        if page.expires_at <= time.monotonic() or page.day != utc_today():
            del self._pages[key]
            return None
        self._pages.move_to_end(key)
        return page

    def put(self, key: PageKey, page: CachedPage) -> None:
        self._pages[key] = page
        self._pages.move_to_end(key)
        while len(self._pages) > self.max_entries:
            self._pages.popitem(last=False)

    async def read_state(self, engine: AsyncEngine, user_id: int, scopes: list[str]) -> PageState | None:
        """The caller's roles and the newest invalidation of `scopes` now; None when the caller is gone
        or the database could not say (the route then answers, and reports any failure)."""
        statement = _freshness_statement(len(scopes))
        parameters = {"user_id": user_id, **_scope_parameters(scopes)}
        try:
            row = await greenlet_spawn(_first_row, engine.sync_engine, statement, parameters)
        except Exception:
            logger.debug("page cache: freshness check failed", exc_info=True)
            return None
        return PageState(roles=row[0], credential_version=row[1], version=row[2]) if row is not None else None

    def clear(self) -> None:
        self._pages.clear()


async def current_version(session: AsyncSession, scopes: list[str]) -> int | None:
    return await session.scalar(_version_statement(len(scopes)), _scope_parameters(scopes))


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
