"""How list routes use the page cache (app.pagecache.cache): `CachedPages` computes, stores and answers a
page; `ServeCachedPages` answers a repeated request from the cache before routing, when the page is still
fresh."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from fastapi import Request, Response
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.types import ASGIApp, Receive, Scope, Send

from app.config import Settings
from app.core.clock import utc_today
from app.core.security import AccessTokenPayload, verified_token_payload
from app.models import User
from app.observability import request_context
from app.observability.metrics import ROUTE_KEY, route_template, series
from app.pagecache.cache import (
    EVERYTHING,
    CachedPage,
    PageCache,
    current_version,
    page_key,
)

# Scope state key: (scopes, version) read by ServeCachedPages for a stale page, reused by its route.
_VERSION_READ = "page_cache_version"


def json_bytes(body: bytes, headers: dict[str, str] | None = None) -> Response:
    return Response(body, media_type="application/json", headers=headers)


PageHeaders = Callable[[], Awaitable[dict[str, str]]]


@dataclass
class PageRequest:
    """One list request's way to the cache: `respond` computes the page, stores it, and answers it."""

    cache: PageCache
    request: Request
    session: AsyncSession
    user: User

    async def respond(
        self,
        scopes: Sequence[str],
        compute: Callable[[], Awaitable[bytes]],
        headers: PageHeaders | None = None,
    ) -> Response:
        """`headers`, when given, are computed with the body (in its snapshot) and kept with the page."""
        if self.cache.ttl <= 0:
            return json_bytes(await compute(), await headers() if headers else None)
        names = [*scopes, EVERYTHING]
        # The version is read before the data: a change committed in between makes the page look stale
        # (computed again next time), never fresh. ServeCachedPages may have read it already.
        known = self.request.scope.get("state", {}).get(_VERSION_READ)
        version = known[1] if known and known[0] == names else await current_version(self.session, names)
        key = page_key(self.request.scope, self.user.id)
        page = self.cache.get(key)
        if page is None or page.version != version or page.roles != self.user.roles:
            page = CachedPage(
                headers=await headers() if headers else {},
                body=await compute(),
                roles=list(self.user.roles),
                scopes=names,
                version=version,
                day=utc_today(),
                expires_at=time.monotonic() + self.cache.ttl,
                route=route_template(self.request.scope),
            )
            self.cache.put(key, page)
            series().cache_misses.inc()
        else:
            series().cache_hits.inc()
        return json_bytes(page.body, page.headers)


def authorization(scope: Scope) -> bytes | None:
    """The request's raw Authorization header."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            return value
    return None


def _verified_caller(scope: Scope, settings: Settings) -> AccessTokenPayload | None:
    """The payload of the bearer token if it was verified before (routes verify; this never does)."""
    header = authorization(scope)
    if header is None:
        return None
    scheme, _, token = header.decode("latin-1").partition(" ")
    return verified_token_payload(settings, token) if scheme.lower() == "bearer" else None


class ServeCachedPages:
    """Pure ASGI: answers a GET whose page is cached and still fresh, before routing and dependencies."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        serve = scope["type"] == "http" and scope["method"] == "GET"
        if not (serve and await self._answered(scope, receive, send)):
            await self.app(scope, receive, send)

    async def _answered(self, scope: Scope, receive: Receive, send: Send) -> bool:
        state = scope["app"].state
        cache: PageCache = state.page_cache
        payload = _verified_caller(scope, state.settings)
        if payload is None:
            return False
        user_id = payload.user_id
        page = cache.get(page_key(scope, user_id))
        if page is None:
            return False
        now = await cache.read_state(state.read_engine, user_id, page.scopes)
        if now is None or now.credential_version != payload.credential_version:
            return False  # the route answers (401 for a token older than the password)
        if now.roles != page.roles or now.version != page.version:
            # Stale: the route computes the page again, at the version just read.
            scope.setdefault("state", {})[_VERSION_READ] = (page.scopes, now.version)
            return False
        request_context.set_user(user_id)
        scope[ROUTE_KEY] = page.route
        series().cache_hits.inc()
        await json_bytes(page.body, page.headers)(scope, receive, send)
        return True
