"""Peak memory of `GET /api/products/export.csv`: the server's peak RSS growth while one owner's products
are exported, for several owner sizes, against the JSON list of the same products (held in memory).

    .venv/bin/python -m bench.csv_export [--sizes 5000,20000]

A uvicorn server on 127.0.0.1 serves a fresh SQLite database (products seeded straight in SQL). Before
each download the server has answered an export and a list of 1,200 products (warm), its peak RSS is reset
(`echo 5 > /proc/<pid>/clear_refs`), the download runs to the end, and the figure is VmHWM (peak) minus
the VmRSS just before. A streamed export stays flat as the owner grows; a response built whole grows with
the owner.
"""

from __future__ import annotations

import argparse
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import httpx

from app.config import Settings
from app.core.migrate import upgrade
from app.core.security import create_access_token
from app.products.warranty import expiry_date

SECRET = "bench-secret-key-long-enough-for-hmac-0123456789abcdef"
WARM_OWNER, WARM_PRODUCTS = 1, 1_200  # the warm-up: three export chunks, so every statement is prepared


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _seed(path: Path, sizes: list[int]) -> None:
    """The warm-up owner, then user i + 2 owning sizes[i] products."""
    now = "2026-01-01 00:00:00.000000"  # as SQLAlchemy stores a DateTime in SQLite
    with sqlite3.connect(path) as db:
        owners = [(WARM_OWNER, WARM_PRODUCTS), *((index + 2, size) for index, size in enumerate(sizes))]
        for owner, count in owners:
            db.execute(
                "INSERT INTO users (id, email, name, password_hash, roles, notifications_enabled,"
                " email_notifications_enabled, credential_version, created_at, updated_at)"
                " VALUES (?, ?, ?, 'x', '[\"ROLE_USER\"]', 1, 1, 0, ?, ?)",
                (owner, f"owner{owner}@example.com", f"Owner {owner}", now, now),
            )
            rows = []
            for n in range(count):
                bought = date(2020 + n % 6, n % 12 + 1, n % 28 + 1)
                rows.append(
                    (owner, f"Product {n} with a name of ordinary length", "Brand", "Kitchen", "Store",
                     bought.isoformat(), 24, expiry_date(bought, 24).isoformat(), "199.99", f"SN-{n:08d}",
                     now, now)
                )  # fmt: skip
            db.executemany(
                "INSERT INTO products (owner_id, name, brand, category, store, purchase_date,"
                " warranty_period_months, warranty_expires_on, price, serial_number, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )


def _memory(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0])  # kB
    return fields


def _download(client: httpx.Client, path: str, headers: dict[str, str]) -> int:
    size = 0
    with client.stream("GET", path, headers=headers) as response:
        response.raise_for_status()
        for chunk in response.iter_bytes():
            size += len(chunk)
    return size


def _peak_growth(
    pid: int, client: httpx.Client, path: str, headers: dict[str, str]
) -> tuple[int, int, float]:
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM := VmRSS
    before = _memory(pid)["VmRSS"]
    started = time.perf_counter()
    size = _download(client, path, headers)
    elapsed = time.perf_counter() - started
    return _memory(pid)["VmHWM"] - before, size, elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="5000,20000")
    sizes = [int(size) for size in parser.parse_args().sizes.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "bench.db"
        url = f"sqlite+aiosqlite:///{database}"
        upgrade(url)
        _seed(database, sizes)
        port = _free_port()
        env = {
            **os.environ,
            "WARRANTY_DATABASE_URL": url,
            "WARRANTY_DATA_DIR": folder,
            "WARRANTY_SECRET_KEY": SECRET,
            "WARRANTY_RUN_WORKER": "false",
            "WARRANTY_CACHE_TTL": "0",
            "WARRANTY_LOG_LEVEL": "WARNING",
        }
        server = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(port), "--log-level", "warning"],
            env=env,
        )
        try:
            settings = Settings(_env_file=None, secret_key=SECRET)  # type: ignore[call-arg]

            def headers(owner: int) -> dict[str, str]:
                return {"Authorization": f"Bearer {create_access_token(settings, owner, ['ROLE_USER'])}"}

            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
                for _ in range(100):
                    try:
                        client.get("/health")
                        break
                    except httpx.TransportError:
                        time.sleep(0.1)
                for path in ("/api/products/export.csv", "/api/products"):
                    _download(client, path, headers(WARM_OWNER))  # warm: imports, caches, pools
                print(
                    f"{'products':>9} {'response':<28} {'peak RSS growth':>16} {'bytes':>11} {'seconds':>8}"
                )
                for index, size in enumerate(sizes):
                    owner = headers(index + 2)
                    for label, path in (
                        ("GET /api/products/export.csv", "/api/products/export.csv"),
                        ("GET /api/products (JSON)", "/api/products"),
                    ):
                        growth, length, elapsed = _peak_growth(server.pid, client, path, owner)
                        print(f"{size:>9} {label:<28} {growth / 1024:>13.1f} MB {length:>11} {elapsed:>8.2f}")
        finally:
            server.terminate()
            server.wait(10)


if __name__ == "__main__":
    main()
