"""GET /metrics: every process's series added up, and the outbox's gauges, in the Prometheus text format."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Sequence
from pathlib import Path

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from app.api.dependencies import ClientAddress, SettingsDep
from app.api.openapi import errors
from app.config import Network, Settings
from app.errors import NotFound
from app.metrics.outbox_backlog import Backlog, read_backlog
from app.observability.metrics import series
from app.observability.metrics_folder import forget_dead_processes

router = APIRouter(tags=["operations"])

_EXAMPLE = (
    "# HELP warranty_hub_streams Open real-time streams.\n"
    "# TYPE warranty_hub_streams gauge\n"
    "warranty_hub_streams 12.0\n"
)


def allowed(client: str, networks: Sequence[Network]) -> bool:
    """`client` as app.api.client_address gives it (IPv4-mapped IPv6 already as IPv4)."""
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return False  # not an IP peer (a Unix socket)
    return any(address in network for network in networks)


def _forwarded_by_stranger(request: Request, settings: Settings) -> bool:
    """Forwarded by a proxy that is not trusted: the peer is the proxy (loopback, often), and who is behind
    it is unknown."""
    if "x-forwarded-for" not in request.headers and "forwarded" not in request.headers:
        return False
    peer = request.client.host if request.client else ""
    return not allowed(peer, settings.trusted_proxy_networks)


def render(folder: Path, backlog: Backlog | None) -> bytes:
    """Reads every process's files (blocking file IO: run in a thread)."""
    forget_dead_processes(folder)
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(folder))
    if backlog is not None:
        registry.register(backlog)
    return generate_latest(registry)


@router.get(
    "/metrics",
    response_class=Response,
    responses={
        200: {"description": "The Prometheus text format", "content": {"text/plain": {"example": _EXAMPLE}}},
        **errors(404),
    },
)
async def metrics(request: Request, settings: SettingsDep, client: ClientAddress) -> Response:
    """The service's series for Prometheus, summed over every worker process of this host: requests by
    route and status with their latency, open hub streams and overflow disconnects, the outbox backlog,
    inbound deliveries by outcome, throttle hits, page-cache hits and misses (docs/operations.md).

    Served without a token, only to client addresses in `WARRANTY_METRICS_ALLOW` (default loopback), as
    `WARRANTY_TRUSTED_PROXIES` resolves them; any other caller gets 404, as for a path that does not
    exist, and so does a request forwarded by a proxy that is not trusted (its client is unknown)."""
    if not allowed(client, settings.metrics_networks) or _forwarded_by_stranger(request, settings):
        raise NotFound("No such resource.")
    backlog = await read_backlog(request.app.state.read_sessionmaker)
    body = await asyncio.to_thread(render, series().folder, backlog)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
