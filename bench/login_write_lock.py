"""How long a `PATCH /api/me` takes while 8 failed logins hash their passwords (contract 12.5).

    .venv/bin/python -m bench.login_write_lock

Starts the service (uvicorn, one worker, SQLite in a temporary folder, the default Argon2id cost: 64 MiB,
t=3, p=4), makes two users, then sends PATCH /api/me alone, and again while 8 wrong-password logins
(another user's) run at once. Each round 3 times. A login that held SQLite's write lock while hashing made
the PATCH wait for the hashes; now it waits only for its turn at the database.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from bench.harness import ROOT, free_port, uvicorn

PASSWORD = "bench-password"


def _patch(url: str, token: str) -> float:
    started = time.perf_counter()
    response = httpx.patch(
        f"{url}/api/me", json={"city": "Paris"}, headers={"Authorization": f"Bearer {token}"}, timeout=60
    )
    response.raise_for_status()
    return time.perf_counter() - started


def _failed_login(url: str, email: str) -> int:
    return httpx.post(f"{url}/api/login", json={"email": email, "password": "wrong"}, timeout=60).status_code


def _sign_up(client: httpx.Client, email: str) -> str:
    client.post(
        "/api/register", json={"email": email, "password": PASSWORD, "name": "Ann"}
    ).raise_for_status()
    return str(client.post("/api/login", json={"email": email, "password": PASSWORD}).json()["token"])


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="warranty-bench-login-"))
    env = {
        "WARRANTY_DATABASE_URL": f"sqlite+aiosqlite:///{folder}/warranty.db",
        "WARRANTY_DATA_DIR": str(folder),
        "WARRANTY_SECRET_KEY": "bench-secret-key-that-is-long-enough-0123456789",
        "WARRANTY_RUN_WORKER": "false",
        "WARRANTY_LOGIN_MAX_FAILURES_PER_EMAIL": "1000",
        "WARRANTY_LOGIN_MAX_FAILURES_PER_CLIENT": "1000",
    }
    migrate = [sys.executable, "-c", "import sys; from app.cli import main; sys.exit(main(['migrate']))"]
    subprocess.run(migrate, env={**os.environ, **env}, cwd=ROOT, check=True)
    server = uvicorn("app.main:app", free_port(), 1, env, folder / "server.log")
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            token = _sign_up(client, "patcher@example.com")
            _sign_up(client, "target@example.com")
        print("| round | PATCH alone | PATCH during 8 failed logins | the 8 logins took |")
        print("|---|---|---|---|")
        with ThreadPoolExecutor(max_workers=9) as pool:
            for round_number in range(1, 4):
                alone = _patch(server.url, token)
                started = time.perf_counter()
                logins = [pool.submit(_failed_login, server.url, "target@example.com") for _ in range(8)]
                time.sleep(0.05)  # the logins are hashing now
                during = _patch(server.url, token)
                statuses = {future.result() for future in logins}
                took = time.perf_counter() - started
                print(
                    f"| {round_number} | {alone * 1000:.0f} ms | {during * 1000:.0f} ms | "
                    f"{took * 1000:.0f} ms ({sorted(statuses)}) |",
                    flush=True,
                )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
