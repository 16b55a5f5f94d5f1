"""Labelled series are exported at 0 for their known labels from a process's start, so an alert on them
(`increase(warranty_inbound_deliveries_total{outcome="failed"}[5m]) > 0`) can be written before the first
event."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import get_args

from app.auth.throttle import Limits
from app.config import Settings
from app.inbound.router import InboundResult
from app.observability.metrics import INBOUND_IGNORED_REASONS, INBOUND_OUTCOMES, THROTTLE_LIMITS

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
