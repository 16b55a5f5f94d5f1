"""The application: settings -> lifespan (engine, sessions, hasher, ...) -> middleware -> routers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware
from starlette.types import Receive, Scope, Send

from app.api.error_handlers import install_error_handlers
from app.api.json_limits import MAX_JSON_DEPTH, MAX_JSON_VALUES
from app.api.middleware import BodySizeLimitMiddleware, JsonLimitsMiddleware, RequestIdMiddleware
from app.api.openapi import without_default_422
from app.api.openapi_document import operation_id, refine
from app.auth.router import router as auth_router
from app.calendar.router import router as calendar_router
from app.claims.router import router as claims_router
from app.config import Settings, get_settings
from app.core.background import finish
from app.core.db import CommitHooks, create_engine, create_read_engine, create_sessionmaker
from app.core.private_files import keep_files_private
from app.core.security import PasswordHasher
from app.core.signing_key import ensure_signing_key
from app.health import router as health_router
from app.households.router import router as households_router
from app.inbound.router import router as inbound_router
from app.messages.router import router as messages_router
from app.metrics.router import router as metrics_router
from app.notifications.channel_keys import ensure_channel_keys
from app.notifications.router import router as notifications_router
from app.observability.logs import configure_logging
from app.observability.metrics import install as install_metrics
from app.observability.url_secrets import hide_url_secrets
from app.oidc.registry import providers_lifespan
from app.oidc.router import router as oidc_router
from app.organizations.router import router as organizations_router
from app.pagecache.cache import PageCache, prune_forever
from app.pagecache.cached_pages import ServeCachedPages
from app.products.routes import router as products_router
from app.ratings.router import router as ratings_router
from app.realtime.asgi_entry import HubEndpoint
from app.realtime.lifespan import hub_lifespan
from app.realtime.openapi_path import router as hub_openapi_path
from app.realtime.router import router as hub_publishing
from app.replies.router import router as replies_router
from app.returns.router import router as returns_router
from app.storage.images import DECODES
from app.storage.storage_backend import create_storage
from app.timeline.router import router as timeline_router
from app.users.router import router as users_router
from app.webhooks.router import router as webhooks_router
from app.worker_assembly import worker_lifespan

# Matched in this order, one route at a time (about 7 µs of CPU per route passed over on the way): a
# claim, its messages and the product lists, the requests that make up most traffic, come first. No
# path of one router matches a route of another (tests/test_main.py; `/api/claims/{id}` is one
# segment, so `/api/claims/messages/{claimId}` is not it), so the order changes nothing else.
ROUTERS = (
    claims_router,
    messages_router,
    products_router,
    timeline_router,
    health_router,
    auth_router,
    oidc_router,
    users_router,
    calendar_router,
    notifications_router,
    webhooks_router,
    households_router,
    organizations_router,
    replies_router,
    returns_router,
    ratings_router,
    inbound_router,
    hub_openapi_path,
    hub_publishing,
    metrics_router,
)


def cors_options(settings: Settings) -> dict[str, Any]:
    """CORS for the API and the hub alike: origins from settings, with credentials."""
    return {
        "allow_origins": settings.cors_origins,
        "allow_credentials": True,
        "allow_methods": ["*"],
        "allow_headers": ["*"],
        "expose_headers": ["Location", "Last-Event-ID", "Link", "Retry-After", "X-Request-ID"],
    }


class Warranty(FastAPI):
    """The service's app: the hub's streams are answered before FastAPI's middleware stack.

    A middleware added with add_middleware would still sit inside FastAPI's own outer layers
    (ServerErrorMiddleware, ExceptionTelemetryMiddleware, AppBodyLimitMiddleware), each a frame kept
    alive per open stream and, for the first, a call on every frame written."""

    hub_endpoint: HubEndpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            scope = hide_url_secrets(scope)  # first: nothing may log a URL with a secret in it
        if HubEndpoint.handles(scope):
            scope["app"] = self
            await self.hub_endpoint(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    configure_logging(settings)
    keep_files_private(settings.data_dir)  # before anything writes there
    install_metrics(settings.data_dir / "metrics")
    ensure_signing_key(settings)
    ensure_channel_keys(settings)
    DECODES.configure(settings.image_decodes)

    app = Warranty(
        title="Warranty",
        summary="Products, warranties, warranty claims and supplier conversations.",
        version="0.1.0",
        openapi_url="/api/openapi.json",
        docs_url="/api/docs",
        redoc_url=None,
        lifespan=_lifespan(settings),
        generate_unique_id_function=operation_id,
    )
    _refine_openapi(app)
    app.state.settings = settings
    app.state.password_hasher = PasswordHasher(settings)
    install_error_handlers(app)
    for router in ROUTERS:
        app.include_router(router)
    _add_middleware(app, settings)
    app.hub_endpoint = HubEndpoint(settings, cors_options(settings))
    return app


def _lifespan(settings: Settings) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The process's objects on app.state, the hub and the outbox worker, and their orderly end."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = create_engine(settings)
        app.state.engine = engine
        # Filled in below by the hub and the worker: how a commit reaches them.
        hooks = CommitHooks()
        app.state.sessionmaker = create_sessionmaker(engine, hooks)
        app.state.read_engine = create_read_engine(engine)
        app.state.read_sessionmaker = create_sessionmaker(app.state.read_engine, hooks)
        app.state.storage = create_storage(settings)
        app.state.page_cache = PageCache(settings.cache_ttl)
        stop = asyncio.Event()
        pruning = asyncio.create_task(prune_forever(app.state.sessionmaker, settings.cache_ttl, stop))
        try:
            async with (
                providers_lifespan(settings) as app.state.oidc_providers,
                hub_lifespan(app, settings, hooks),
                worker_lifespan(app, settings, hooks),
            ):
                yield
        finally:
            stop.set()
            await finish([pruning], within=10.0)
            await app.state.storage.close()  # lets file removals started by the last commits finish
            await engine.dispose()

    return lifespan


def _refine_openapi(app: FastAPI) -> None:
    """The document FastAPI generates, refined once (api.openapi_document) and kept."""
    default_openapi = app.openapi

    def openapi() -> dict[str, object]:
        if app.openapi_schema is None:
            app.openapi_schema = refine(without_default_422(default_openapi()))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _add_middleware(app: FastAPI, settings: Settings) -> None:
    # Added innermost first: the request id wraps everything, so every response carries it.
    app.add_middleware(ServeCachedPages)
    app.add_middleware(JsonLimitsMiddleware, max_depth=MAX_JSON_DEPTH, max_values=MAX_JSON_VALUES)
    app.add_middleware(BodySizeLimitMiddleware, max_body_size=settings.max_body_size)
    app.add_middleware(CORSMiddleware, **cors_options(settings))
    app.add_middleware(RequestIdMiddleware)


def __getattr__(name: str) -> FastAPI:
    # `uvicorn app.main:app` builds the app on first access, so importing this module has no side effects.
    if name == "app":
        application = create_app()
        globals()["app"] = application
        return application
    raise AttributeError(name)
