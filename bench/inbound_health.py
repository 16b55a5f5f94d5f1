"""The longest `/health` answer while the service reads a 2 MB hostile inbound email.

    .venv/bin/python -m bench.inbound_health

Starts the service (uvicorn, one worker, SQLite in a temporary folder), makes a customer with a claim
through the API, then posts signed 2 MB emails to the inbound webhook while a second client asks
`/health` every 5 ms. Prints, for each email, how long the webhook took and the longest `/health` answer
during it, beside the longest `/health` answer with no email at all. An email that held the event loop
would show as a `/health` answer as long as the webhook itself.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from bench.harness import ROOT, free_port, uvicorn

SECRET = "bench-webhook-secret"
MB2 = 2 * 1024 * 1024


def _fill(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


EMAILS = {
    "text: 'Am schrieb schrieb ... 1' on one line": ("Am " + _fill("schrieb ", MB2) + "1", ""),
    "text: attribution starts that never end": (_fill("On 5.1.2026 10:12 Ann <a@x.io>\n", MB2), ""),
    "html: '</' run": ("", "<p>Reply</p>" + _fill("</", MB2)),
    "html: block tags": ("", _fill("<div>x</div><p>y</p><br>", MB2)),
}


def _health_poller(url: str, stop: threading.Event, samples: list[tuple[float, float]]) -> None:
    with httpx.Client(timeout=60) as client:
        while not stop.is_set():
            started = time.perf_counter()
            client.get(f"{url}/health").raise_for_status()
            samples.append((started, time.perf_counter() - started))
            time.sleep(0.005)


def _claim(client: httpx.Client) -> tuple[str, int]:
    email = "bench-customer@example.com"
    client.post("/api/register", json={"email": email, "password": "bench-password", "name": "Ann"})
    token = client.post("/api/login", json={"email": email, "password": "bench-password"}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    kettle = {"name": "Kettle", "brand": "B", "category": "C", "purchaseDate": "2026-01-02"}
    product = client.post("/api/products", headers=auth, json={**kettle, "warrantyPeriodMonths": 24}).json()
    claim = client.post("/api/claims", headers=auth, json={"productId": product["id"], "description": "Leak"})
    return email, int(claim.json()["id"])


def _post(client: httpx.Client, sender: str, claim_id: int, text: str, html: str) -> tuple[int, float]:
    email = {"from": sender, "to": f"claim+{claim_id}@warranty.local", "subject": "Re", "text": text}
    body = json.dumps({**email, "html": html}).encode()
    signature = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    started = time.perf_counter()
    response = client.post(
        "/api/webhook/resend/inbound",
        content=body,
        headers={"Content-Type": "application/json", "Resend-Signature": signature},
    )
    return response.status_code, time.perf_counter() - started


def _longest(samples: list[tuple[float, float]], start: float, end: float) -> float:
    during = [seconds for at, seconds in samples if start <= at <= end]
    return max(during, default=0.0)


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="warranty-bench-inbound-"))
    env = {
        "WARRANTY_DATABASE_URL": f"sqlite+aiosqlite:///{folder}/warranty.db",
        "WARRANTY_DATA_DIR": str(folder),
        "WARRANTY_SECRET_KEY": "bench-secret-key-that-is-long-enough-0123456789",
        "WARRANTY_WEBHOOK_SECRET": SECRET,
        "WARRANTY_RUN_WORKER": "false",
    }
    migrate = [sys.executable, "-c", "import sys; from app.cli import main; sys.exit(main(['migrate']))"]
    subprocess.run(migrate, env={**os.environ, **env}, cwd=ROOT, check=True)
    port = free_port()
    server = uvicorn("app.main:app", port, 1, env, folder / "server.log")
    samples: list[tuple[float, float]] = []
    stop = threading.Event()
    try:
        with httpx.Client(base_url=server.url, timeout=120) as client:
            sender, claim_id = _claim(client)
            poller = threading.Thread(target=_health_poller, args=(server.url, stop, samples))
            poller.start()
            time.sleep(2.0)
            quiet = max(seconds for _at, seconds in samples)
            print(f"longest /health answer with no email (2 s): {quiet * 1000:.1f} ms")
            print("| email (2 MB) | webhook status | webhook took | longest /health during it |")
            print("|---|---|---|---|")
            for name, (text, html) in EMAILS.items():
                start = time.perf_counter()
                status, took = _post(client, sender, claim_id, text, html)
                longest = _longest(samples, start, time.perf_counter())
                print(f"| {name} | {status} | {took * 1000:.0f} ms | {longest * 1000:.1f} ms |", flush=True)
    finally:
        stop.set()
        server.stop()


if __name__ == "__main__":
    main()
