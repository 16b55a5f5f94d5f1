"""The series of GET /metrics (docs/operations.md, "Metrics"), counted in process memory
(prometheus-client's multiprocess mode: a write to a memory-mapped file, no lock between processes) and
added up across processes at scrape time (app.metrics.router). The outbox's gauges are not here: a
scrape reads them from the database (app.metrics.outbox_backlog).

The series are made once per process, by the first app (`install`): prometheus-client reads the folder
when it creates a series, so the folder must be known first."""

from __future__ import annotations

import tempfile
from pathlib import Path

from prometheus_client import Counter, Gauge, Histogram, values
from starlette.types import Scope

from app.observability import metrics_folder

# Seconds; the last bucket (+Inf) catches the rest.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
UNMATCHED = "unmatched"  # the route of a request no route matched (a 404 on a path of the caller's)
# Set by what answers before routing (the page cache): the template of the route it stands in for.
ROUTE_KEY = "warranty.route"
# Any other method is counted as OTHER: a client must not make up series.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# The known labels of the labelled counters, exported at 0 from the start: an alert on a series needs the
# series before its first event (`increase()` of a missing series is nothing, not 0).
INBOUND_OUTCOMES = ("processed", "ignored", "duplicate", "rejected", "failed")
# Why an inbound email posted nothing (app/inbound/service.py).
INBOUND_IGNORED_REASONS = (
    "not_an_email", "stale", "resend_api_key_missing", "invalid_provider_id", "unknown_to_provider",
    "sender_not_authenticated", "automated", "claim_closed", "empty_reply",
)  # fmt: skip
SLA_DEADLINES = ("first_response", "resolution")
THROTTLE_LIMITS = ("login_email", "login_client", "password_forgot", "register", "hub_streams")


def route_template(scope: Scope) -> str:
    """The matched route's whole template (`/api/claims/{id}`), as FastAPI's telemetry names it
    (`http.route`): the route object of an included router knows only its own part (`/products`)."""
    if ROUTE_KEY in scope:
        return str(scope[ROUTE_KEY])
    context = scope.get("fastapi", {}).get("effective_route_context")
    template = getattr(context, "path_format", None) or getattr(scope.get("route"), "path", None)
    return template or UNMATCHED


class Series:
    def __init__(self, where: Path) -> None:
        self.folder = where
        self.requests = Histogram(
            "warranty_http_request_duration_seconds",
            "Requests by method, route template and status: _count is the request count. For the hub's "
            "streams, the time to the response start.",
            ("method", "route", "status"),
            buckets=LATENCY_BUCKETS,
            registry=None,
        )
        self.hub_streams = Gauge(
            "warranty_hub_streams", "Open real-time streams.", multiprocess_mode="livesum", registry=None
        )
        self.hub_overflows = Counter(
            "warranty_hub_overflow_disconnects",
            "Streams cut off because their subscriber fell a full queue behind.",
            registry=None,
        )
        self.inbound = Counter(
            "warranty_inbound_deliveries",
            "Inbound-email webhook deliveries by outcome: processed, ignored, duplicate, rejected (4xx), "
            "failed (5xx).",
            ("outcome",),
            registry=None,
        )
        self.inbound_ignored = Counter(
            "warranty_inbound_ignored",
            "Inbound emails that posted nothing, by reason: " + ", ".join(INBOUND_IGNORED_REASONS) + ".",
            ("reason",),
            registry=None,
        )
        self.throttled = Counter(
            "warranty_throttle_hits",
            "Requests refused with 429, by limit: login_email, login_client, password_forgot, register, "
            "hub_streams.",
            ("limit",),
            registry=None,
        )
        self.cache_hits = Counter(
            "warranty_page_cache_hits", "List pages answered from the page cache.", registry=None
        )
        self.cache_misses = Counter(
            "warranty_page_cache_misses",
            "List pages computed because none was cached or the cached one was stale.",
            registry=None,
        )
        self.sla_breaches = Counter(
            "warranty_sla_breaches",
            "Missed deadlines of routed claims, recorded once each, by deadline: first_response, resolution.",
            ("which",),
            registry=None,
        )
        self._request_series: dict[tuple[str, str, int], Histogram] = {}
        self._known_labels()

    def _known_labels(self) -> None:
        """Every labelled counter at 0 for each label it can take, from the process's start."""
        for outcome in INBOUND_OUTCOMES:
            self.inbound.labels(outcome)
        for reason in INBOUND_IGNORED_REASONS:
            self.inbound_ignored.labels(reason)
        for limit in THROTTLE_LIMITS:
            self.throttled.labels(limit)
        for which in SLA_DEADLINES:
            self.sla_breaches.labels(which)

    def observe_request(self, method: str, route: str, status: int, seconds: float) -> None:
        """One answered request (kept per label set: `labels()` builds and locks on every call)."""
        method = method if method in METHODS else "OTHER"
        key = (method, route, status)
        child = self._request_series.get(key)
        if child is None:
            child = self._request_series[key] = self.requests.labels(method, route, str(status))
        child.observe(seconds)


_installed: list[Series] = []


def install(default_folder: Path) -> Series:
    """The process's series, made on the first call in `default_folder` (unless PROMETHEUS_MULTIPROC_DIR
    names another); later calls answer the same ones."""
    if not _installed:
        where = metrics_folder.claim(default_folder)
        if not getattr(values.ValueClass, "_multiprocess", False):
            # prometheus-client chose in-memory values at import, before the folder was named.
            values.ValueClass = values.MultiProcessValue()
        _installed.append(Series(where))
    return _installed[0]


def series() -> Series:
    """The process's series; code that runs before any app (a unit test) gets a folder of its own."""
    return _installed[0] if _installed else install(Path(tempfile.mkdtemp(prefix="warranty-metrics-")))
