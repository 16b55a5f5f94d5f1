"""`make bench`: every figure of docs/performance.md, written to bench/results/.

    python -m bench.run [--only rest|hub|layers|scale] [--seconds N] [--rest-cases 'POST message']
        [--hub-cases 1k,10k,10k-1000]

Creates its own PostgreSQL databases on WARRANTY_BENCH_PG (default postgres@127.0.0.1:5432), seeds them,
starts the service (one worker and two) and the floor app side by side, drives them with wrk, and drops
the databases at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import uvloop
from sqlalchemy import insert, select

from app.config import Settings
from app.core.db import create_engine, create_sessionmaker
from app.core.migrate import upgrade
from app.core.security import PasswordHasher, create_access_token
from app.models import Claim, Product
from bench import harness, hub
from bench.seed import Seeded, seed

RESULTS = Path(__file__).resolve().parent / "results"
SECRET = "bench-secret-key-long-enough-for-hs256-signing-0123456789abcdef"
SERVER = os.environ.get("WARRANTY_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


async def create_database(name: str) -> str:
    connection = await asyncpg.connect(SERVER)
    await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    await connection.execute(f'CREATE DATABASE "{name}"')
    await connection.close()
    base = SERVER.rsplit("/", 1)[0]
    return f"{base}/{name}".replace("postgresql://", "postgresql+asyncpg://", 1)


async def drop_database(name: str) -> None:
    connection = await asyncpg.connect(SERVER)
    await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    await connection.close()


def settings_for(url: str, **extra: Any) -> Settings:
    return Settings(_env_file=None, database_url=url, secret_key=SECRET, **extra)  # type: ignore[call-arg]


async def prepare(url: str, extra_claims: bool = False) -> Seeded:
    await asyncio.to_thread(upgrade, url)
    settings = settings_for(url)
    engine = create_engine(settings)
    async with create_sessionmaker(engine)() as session, session.begin():
        seeded = await seed(session, PasswordHasher(settings))
        if extra_claims:  # the hub spreads subscribers over 1,000 claims
            taken = select(Claim.product_id)
            free = (await session.scalars(select(Product.id).where(Product.id.not_in(taken)))).all()
            now = datetime.now(UTC)
            rows = [
                {
                    "product_id": pid,
                    "customer_id": seeded.customer_id,
                    "supplier_id": seeded.supplier_id,
                    "status": "open",
                    "description": "hub",
                    "created_at": now,
                    "updated_at": now,
                }
                for pid in free[:800]
            ]
            await session.execute(insert(Claim), rows)
    await engine.dispose()
    return seeded


def service_env(url: str, **extra: str) -> dict[str, str]:
    return {
        "WARRANTY_DATABASE_URL": url,
        "WARRANTY_SECRET_KEY": SECRET,
        "WARRANTY_DATA_DIR": str(RESULTS / "var"),
        "WARRANTY_LOG_LEVEL": "WARNING",
        **extra,
    }


def token_for(url: str, user_id: int, roles: list[str]) -> str:
    return create_access_token(settings_for(url, access_token_ttl=86_400), user_id, roles)


# name -> (subscribers, topics they spread over, topics published to)
HUB_CASES = {"1k": (1_000, 1, 1), "10k": (10_000, 1, 1), "10k-1000": (10_000, 1_000, 10)}


async def run_hub(logs: Path, cases: list[str]) -> list[dict[str, Any]]:
    name = "warranty_bench_hub"
    url = await create_database(name)
    figures: list[dict[str, Any]] = []
    try:
        seeded = await prepare(url, extra_claims=True)
        engine_url = url.replace("+asyncpg", "")
        connection = await asyncpg.connect(engine_url)
        claim_ids = [r["id"] for r in await connection.fetch("SELECT id FROM claims ORDER BY id")]
        await connection.close()
        token = token_for(url, seeded.customer_id, ["ROLE_USER"])
        env = service_env(
            url,
            WARRANTY_SSE_MAX_STREAMS_PER_USER="20000",
            WARRANTY_SSE_HEARTBEAT="60",
            WARRANTY_RUN_WORKER="false",
        )
        for subscribers, topic_count, publish_topics in (HUB_CASES[case] for case in cases):
            topics = claim_ids[:topic_count]
            port = harness.free_port()
            server = harness.uvicorn("app.main:app", port, 1, env, logs / f"hub-{subscribers}.log")
            try:
                result = await hub.measure(
                    port=port,
                    server_pid=server.process.pid,
                    dsn=engine_url,
                    token=token,
                    claim_ids=topics,
                    subscribers=subscribers,
                    publish_topics=publish_topics,
                )
            finally:
                server.stop()
            print(f"hub: {result.as_dict()}", flush=True)
            figures.append(result.as_dict())
    finally:
        await drop_database(name)
    return figures


def machine() -> dict[str, str]:
    cpu = subprocess.run(
        ["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], capture_output=True, text=True
    ).stdout.strip()
    return {"cpu": cpu, "cores": str(os.cpu_count()), "python": platform.python_version()}


def main() -> None:
    if shutil.which("wrk") is None:
        raise SystemExit("the benchmarks need wrk (Debian: apt-get install wrk)")
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", choices=["rest", "hub", "layers", "scale"])
    parser.add_argument("--seconds", type=int, default=10, help="wrk duration per measurement")
    parser.add_argument(
        "--rest-cases",
        help="only the REST endpoints whose label contains one of these, comma-separated: 'POST message'",
    )
    parser.add_argument(
        "--hub-cases",
        default=",".join(HUB_CASES),
        help=f"hub cases to run, comma-separated: {', '.join(HUB_CASES)}",
    )
    args = parser.parse_args()
    RESULTS.mkdir(exist_ok=True)
    logs = RESULTS / "logs"
    logs.mkdir(exist_ok=True)
    report: dict[str, Any] = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "machine": machine()}
    if args.only in (None, "rest"):
        from bench.rest import run_rest

        report["rest"] = asyncio.run(
            run_rest(args.seconds, logs, args.rest_cases.split(",") if args.rest_cases else None)
        )
    if args.only in (None, "layers"):
        from bench.layers import run_layers

        report["layers"] = uvloop.run(run_layers())
    if args.only in (None, "hub"):
        report["hub"] = uvloop.run(run_hub(logs, args.hub_cases.split(",")))
    if args.only in (None, "scale"):  # small and large data sets (the large one seeds in minutes)
        from bench import scale

        report["scale"] = scale.run(list(scale.SIZES), rounds=15, keep=False, reuse=False)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = RESULTS / f"bench-{stamp}.json"
    out.write_text(json.dumps(report, indent=2))
    print(f"written {out}")


if __name__ == "__main__":
    main()
