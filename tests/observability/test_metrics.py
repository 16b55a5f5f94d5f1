"""The series of GET /metrics (app.observability.metrics): labelled series are exported at 0 for their known
labels from a process's start, so an alert on them (`increase(warranty_inbound_deliveries_total{outcome=
"failed"}[5m]) > 0`) can be written before the first event; a request is counted under its route's whole
template and a method a client made up is OTHER."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, get_args

from app.auth.throttle import Limits
from app.config import Settings
from app.inbound.router import InboundResult
from app.observability.metrics import (
    INBOUND_IGNORED_REASONS,
    INBOUND_OUTCOMES,
    ROUTE_KEY,
    THROTTLE_LIMITS,
    UNMATCHED,
    route_template,
    series,
)

# A process of its own: this one's series have counted the suite's traffic already.
_SCRAPE_A_NEW_PROCESS = """
import sys
from pathlib import Path
from app.observability.metrics import install
from app.metrics.router import render
print(render(install(Path(sys.argv[1])).folder, None).decode())
"""


def test_a_new_process_exports_every_known_label_at_zero(tmp_path: Path) -> None:
    # Not this process's folder: the new process would read what this one has counted.
    env = {name: value for name, value in os.environ.items() if name != "PROMETHEUS_MULTIPROC_DIR"}
    text = subprocess.run(
        [sys.executable, "-c", _SCRAPE_A_NEW_PROCESS, str(tmp_path)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    for outcome in ("processed", "ignored", "duplicate", "rejected", "failed"):
        assert f'warranty_inbound_deliveries_total{{outcome="{outcome}"}} 0.0' in text
    for limit in ("login_email", "login_client", "password_forgot", "register", "hub_streams"):
        assert f'warranty_throttle_hits_total{{limit="{limit}"}} 0.0' in text
    for reason in ("stale", "sender_not_authenticated", "automated", "claim_closed", "empty_reply"):
        assert f'warranty_inbound_ignored_total{{reason="{reason}"}} 0.0' in text
    assert text.count("warranty_inbound_ignored_total{") == len(INBOUND_IGNORED_REASONS)


def test_the_known_labels_are_the_ones_counted(settings: Settings) -> None:
    throttles = {limit.bucket for limit in vars(Limits.of(settings)).values()}
    assert throttles | {"hub_streams"} == set(THROTTLE_LIMITS)
    # What the webhooks answer, and the two refusals the router counts (a 4xx, a 5xx).
    answered = set(get_args(InboundResult.model_fields["status"].annotation))
    assert set(INBOUND_OUTCOMES) == answered | {"rejected", "failed"}


def test_a_request_is_counted_under_its_routes_whole_template() -> None:
    included = SimpleNamespace(path_format="/api/claims/{id}")  # what FastAPI knows of the whole path
    assert route_template({"fastapi": {"effective_route_context": included}}) == "/api/claims/{id}"
    assert route_template({"route": SimpleNamespace(path="/metrics")}) == "/metrics"
    assert route_template({"fastapi": {}, "route": None}) == UNMATCHED  # a 404 on a path of the caller's
    # The page cache answers before routing and names the route it stands in for.
    assert (
        route_template({ROUTE_KEY: "/api/products", "route": SimpleNamespace(path="/x")}) == "/api/products"
    )


def _observed(route: str) -> dict[tuple[str, str], float]:
    """The request histogram's _count and _sum samples of `route`, by method."""
    found = {}
    for family in series().requests.collect():
        for sample in family.samples:
            labels: dict[str, Any] = sample.labels
            if labels.get("route") == route and sample.name.endswith(("_count", "_sum")):
                found[(labels["method"], sample.name.rsplit("_", 1)[1])] = sample.value
    return found


def test_a_method_a_client_made_up_is_counted_as_other() -> None:
    route = "/tests/observability/made-up-methods"
    series().observe_request("BREW", route, 418, 0.25)
    series().observe_request("PROPFIND", route, 418, 0.5)
    series().observe_request("GET", route, 418, 1.0)

    assert _observed(route) == {
        ("OTHER", "count"): 2,
        ("OTHER", "sum"): 0.75,
        ("GET", "count"): 1,
        ("GET", "sum"): 1.0,
    }
