"""Scale: what each list and detail costs on a small data set and on a large one, page cache off.

    python -m bench.scale [--size small|large] [--keep] [--reuse] [--rounds N]

Seeds each set straight in SQL (bench.scale_seed) into a PostgreSQL database of its own on
WARRANTY_BENCH_PG (default postgres@127.0.0.1:5432), starts the service (one worker, WARRANTY_CACHE_TTL=0),
requests every list and detail one at a time, and prints p50/p99 per request for each size side by side.
The slowest request's slowest SQL statement is run again under EXPLAIN (ANALYZE, BUFFERS); the figures
and that plan go to bench/results/. `--keep` keeps the databases (`warranty_scale_<size>`) and `--reuse`
measures a kept one again (after migrating it to head), so the large set is seeded once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx

from bench import harness
from bench.run import RESULTS, SERVER, create_database, drop_database, service_env, settings_for, token_for
from bench.scale_seed import (
    BUSY_CLAIM,
    REPLAY_EVENTS,
    SIZES,
    Size,
    agent_of,
    household_of,
    member_of,
    owner_of,
    seed,
)

SHARED_CLAIM = 10  # its product (10) is shared with a household of its owner

Request = tuple[str, str, str]  # label, who (admin, customer, member, agent: user_of), path


def database_name(size: str) -> str:
    return f"warranty_scale_{size}"


async def exists(name: str) -> bool:
    connection = await asyncpg.connect(SERVER)
    try:
        return bool(await connection.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name))
    finally:
        await connection.close()


async def prepare(size_name: str, reuse: bool) -> tuple[str, dict[str, Any]]:
    """The database URL of a seeded, migrated, vacuumed set, and what seeding took."""
    from app.core.migrate import upgrade

    name = database_name(size_name)
    base = SERVER.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://", 1)
    if reuse and await exists(name):
        url = f"{base}/{name}"
        started = time.monotonic()
        await asyncio.to_thread(upgrade, url)
        migrated = time.monotonic() - started
        connection = await asyncpg.connect(url.replace("+asyncpg", ""))
        try:  # what autovacuum would have done after a migration that rewrote rows
            await connection.execute("VACUUM ANALYZE")
        finally:
            await connection.close()
        return url, {"reused": True, "migrate_seconds": round(migrated, 1)}
    url = await create_database(name)
    started = time.monotonic()
    await asyncio.to_thread(upgrade, url)
    connection = await asyncpg.connect(url.replace("+asyncpg", ""))
    try:
        counts = await seed(connection, SIZES[size_name])
        seeded = time.monotonic() - started
        await connection.execute("VACUUM ANALYZE")
    finally:
        await connection.close()
    return url, {
        "rows": counts,
        "seed_seconds": round(seeded, 1),
        "seed_and_vacuum_seconds": round(time.monotonic() - started, 1),
    }


def requests_for(size: Size) -> list[Request]:
    """Every admin list, every filter of GET /api/messages, a customer's lists, a claim's pages and
    detail."""
    busy = BUSY_CLAIM
    middle = max(1, size.products // 50 // 2)
    deep_messages = max(1, size.busy_messages // 50)
    return [
        ("admin products, first page", "admin", "/api/admin/products?page=1&limit=50"),
        ("admin products, middle page", "admin", f"/api/admin/products?page={middle}&limit=50"),
        (
            "admin products, middle page by cursor",
            "admin",
            f"cursor:/api/admin/products?page={middle}&limit=50",
        ),
        ("admin products, brand", "admin", "/api/admin/products?page=1&limit=50&brand=Sony"),
        (
            "admin products, warrantyStatus",
            "admin",
            "/api/admin/products?page=1&limit=50&warrantyStatus=active",
        ),
        ("admin products, sort name", "admin", "/api/admin/products?page=1&limit=50&sort=name&order=asc"),
        ("admin claims, first page", "admin", "/api/admin/claims?page=1&limit=50"),
        ("admin claims, status", "admin", "/api/admin/claims?page=1&limit=50&status=open"),
        (
            "admin claims, middle page by cursor",
            "admin",
            f"cursor:/api/admin/claims?page={max(1, size.claims // 100)}&limit=50",
        ),
        ("admin users", "admin", "/api/admin/users?page=1&limit=50"),
        ("users (4.5 meta)", "admin", "/api/users?page=1&limit=50"),
        ("admin notifications", "admin", "/api/admin/notifications?page=1&limit=50"),
        ("messages", "admin", "/api/messages?page=1&limit=50"),
        ("messages unread", "admin", "/api/messages?page=1&limit=50&unread=true"),
        ("messages read", "admin", "/api/messages?page=1&limit=50&unread=false"),
        ("messages of the busy claim", "admin", f"/api/messages?page=1&limit=50&claimId={busy}"),
        ("messages of a supplier", "admin", "/api/messages?page=1&limit=50&senderId=3"),
        (
            "messages unread of the busy claim",
            "admin",
            f"/api/messages?page=1&limit=50&claimId={busy}&unread=true",
        ),
        (
            "messages, middle page by cursor",
            "admin",
            f"cursor:/api/messages?page={size.messages // 100}&limit=50",
        ),
        ("customer products", "customer", "/api/products?page=1&limit=20"),
        ("customer claims", "customer", "/api/claims?page=1&limit=20"),
        ("busy claim, first message page", "customer", f"/api/claims/{busy}/messages?page=1&limit=50"),
        (
            "busy claim, last message page",
            "customer",
            f"/api/claims/{busy}/messages?page={deep_messages}&limit=50",
        ),
        (
            "busy claim, last page by cursor",
            "customer",
            f"cursor:/api/claims/{busy}/messages?page={deep_messages - 1}&limit=50",
        ),
        ("busy claim detail", "customer", f"/api/claims/{busy}"),
        ("quiet claim detail", "customer", f"/api/claims/{owner_claim(size)}"),
        # Households and organisations (contract 17): a member's list of own and shared products, a shared
        # claim read by a member who did not file it, and the big organisation's queue read by an agent.
        ("household member's products", "member", "/api/products?page=1&limit=20"),
        ("household member's claims", "member", "/api/claims?page=1&limit=20"),
        ("shared claim detail, by a member", "member", f"/api/claims/{SHARED_CLAIM}"),
        ("queue, first page", "agent", "/api/organizations/1/claims?limit=50"),
        ("queue, unassigned", "agent", "/api/organizations/1/claims?limit=50&assigned=none"),
        ("queue, status", "agent", "/api/organizations/1/claims?limit=50&status=open"),
        ("queue, text", "agent", "/api/organizations/1/claims?limit=50&q=stopped"),
        ("queue, soonest deadline first", "agent", "/api/organizations/1/claims?limit=50&sort=due"),
        (
            "organisation report, a year",
            "manager",
            "/api/organizations/1/report?from=2025-12-01&to=2026-11-30",
        ),
        ("queue, next page by cursor", "agent", "cursor:/api/organizations/1/claims?limit=50"),
    ]


def report_period() -> str:
    """The last 366 days, today included: every seeded claim's creation falls in it."""
    today = datetime.now(UTC).date()
    return f"from={today - timedelta(days=365)}&to={today}"


def user_of(size: Size, who: str) -> tuple[int, list[str]]:
    """The user id and roles each request is made as: the admin, the busy claim's customer, a member (not
    the owner) of the household the shared claim's product is in, an agent of the big organisation."""
    if who == "admin":
        return 1, ["ROLE_USER", "ROLE_ADMIN"]
    if who == "member":
        household = household_of(size, SHARED_CLAIM)
        assert household is not None  # its product is one of the shared ones
        return member_of(size, household), ["ROLE_USER"]
    if who == "agent":
        return agent_of(size, 1) + 1, ["ROLE_USER", "ROLE_SUPPLIER"]
    if who == "manager":  # the big organisation's first member
        return agent_of(size, 1), ["ROLE_USER", "ROLE_SUPPLIER"]
    return owner_of(size, BUSY_CLAIM), ["ROLE_USER"]


def owner_claim(size: Size) -> int:
    """Another claim of the busy claim's customer, with an ordinary conversation."""
    customers = size.users - size.suppliers - 1
    return BUSY_CLAIM + customers


def timed(client: httpx.Client, path: str, headers: dict[str, str], rounds: int) -> list[float]:
    samples = []
    for number in range(rounds + 2):
        started = time.perf_counter()
        response = client.get(path, headers=headers)
        elapsed = (time.perf_counter() - started) * 1000
        if response.status_code != 200:
            raise RuntimeError(f"{path}: {response.status_code} {response.text[:300]}")
        if number >= 2:  # two warm-up requests: connections made, statements prepared
            samples.append(elapsed)
    return samples


def cursor_path(client: httpx.Client, path: str, headers: dict[str, str]) -> str | None:
    """The path of the page after `path`, by the cursor that page answers (None: no cursor paging)."""
    body = client.get(path, headers=headers).json()
    cursor = body.get("meta", {}).get("next_cursor")
    if not cursor:
        return None
    base, _, query = path.partition("?")
    kept = [part for part in query.split("&") if not part.startswith(("page=", "cursor="))]
    return f"{base}?{'&'.join([*kept, 'cursor=' + cursor])}"


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {"p50_ms": round(statistics.median(ordered), 1), "p99_ms": round(p99, 1)}


async def replay_ms(base_url: str, token: str, rounds: int) -> list[float]:
    """Time to receive the busy claim's whole history from `earliest` on the hub."""
    samples = []
    url = f"{base_url}/.well-known/mercure?topic=claims/{BUSY_CLAIM}/messages&lastEventID=earliest"
    async with httpx.AsyncClient(timeout=60) as client:
        for number in range(rounds + 1):
            started = time.perf_counter()
            received = 0
            headers = {"Authorization": f"Bearer {token}"}
            async with client.stream("GET", url, headers=headers) as response:
                async for line in response.aiter_lines():
                    if line.startswith("id:"):
                        received += 1
                        if received == REPLAY_EVENTS:
                            break
            if number:
                samples.append((time.perf_counter() - started) * 1000)
    return samples


def measure(url: str, size: Size, rounds: int, logs: Path) -> dict[str, Any]:
    tokens = {
        who: token_for(url, *user_of(size, who))
        for who in ("admin", "customer", "member", "agent", "manager")
    }
    headers = {who: {"Authorization": f"Bearer {token}"} for who, token in tokens.items()}
    env = service_env(url, WARRANTY_RUN_WORKER="false", WARRANTY_CACHE_TTL="0")
    server = harness.uvicorn("app.main:app", harness.free_port(), 1, env, logs / "scale.log")
    figures: dict[str, Any] = {}
    try:
        with httpx.Client(base_url=server.url, timeout=120) as client:
            for label, who, path in requests_for(size):
                if path.startswith("cursor:"):
                    found = cursor_path(client, path.removeprefix("cursor:"), headers[who])
                    if found is None:
                        figures[label] = {"path": path, "skipped": "no meta.next_cursor"}
                        continue
                    path = found
                figures[label] = {
                    "path": path,
                    "who": who,
                    **summary(timed(client, path, headers[who], rounds)),
                }
                print(f"  {label}: {figures[label]['p50_ms']} / {figures[label]['p99_ms']} ms", flush=True)
        replay = asyncio.run(replay_ms(server.url, tokens["customer"], max(3, rounds // 3)))
        figures["hub replay of the busy claim"] = {
            "path": "/.well-known/mercure (earliest)",
            **summary(replay),
        }
    finally:
        server.stop()
    return figures


def explain_slowest(url: str, size: Size, figures: dict[str, Any]) -> str:
    """EXPLAIN (ANALYZE, BUFFERS) of the slowest statement of the slowest request (run in process)."""
    timed_rows = [(f["p50_ms"], label) for label, f in figures.items() if "who" in f]
    _, label = max(timed_rows)
    figure = figures[label]
    return asyncio.run(_explain(url, size, label, figure["path"], figure["who"]))


async def _explain(url: str, size: Size, label: str, path: str, who: str) -> str:
    from sqlalchemy import event

    from app.main import create_app

    settings = settings_for(url, cache_ttl=0, run_worker=False, data_dir=RESULTS / "var")
    app = create_app(settings)
    token = token_for(url, *user_of(size, who))
    statements: list[tuple[float, str, Any]] = []
    started: dict[int, float] = {}

    def before(_conn: Any, cursor: Any, *_args: Any) -> None:
        started[id(cursor)] = time.perf_counter()

    def after(_conn: Any, cursor: Any, statement: str, parameters: Any, *_args: Any) -> None:
        statements.append((time.perf_counter() - started.pop(id(cursor), 0.0), statement, parameters))

    async with app.router.lifespan_context(app):
        engine = app.state.engine
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://scale") as client:
            await client.get(path, headers={"Authorization": f"Bearer {token}"})
            event.listen(engine.sync_engine, "before_cursor_execute", before)
            event.listen(engine.sync_engine, "after_cursor_execute", after)
            await client.get(path, headers={"Authorization": f"Bearer {token}"})
            event.remove(engine.sync_engine, "before_cursor_execute", before)
            event.remove(engine.sync_engine, "after_cursor_execute", after)
        seconds, statement, parameters = max(statements, key=lambda found: found[0])
        async with engine.connect() as connection:
            result = await connection.exec_driver_sql(
                "EXPLAIN (ANALYZE, BUFFERS) " + statement, tuple(parameters or ())
            )
            plan = "\n".join(row[0] for row in result)
    return (
        f"request: {label} ({path})\nslowest statement: {seconds * 1000:.1f} ms\n{statement}\n"
        f"parameters: {parameters!r}\n\n{plan}\n"
    )


def report(by_size: dict[str, dict[str, Any]]) -> str:
    sizes = list(by_size)
    lines = ["| request | " + " | ".join(f"{s} p50 / p99 ms" for s in sizes) + " |"]
    lines.append("|---" * (len(sizes) + 1) + "|")
    labels: list[str] = []
    for result in by_size.values():
        labels += [label for label in result["figures"] if label not in labels]
    for label in labels:
        cells = []
        for size in sizes:
            figure = by_size[size]["figures"].get(label, {})
            cells.append(f"{figure['p50_ms']} / {figure['p99_ms']}" if "p50_ms" in figure else "-")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run(
    sizes: list[str], rounds: int, keep: bool, reuse: bool, say: Callable[[str], None] = print
) -> dict[str, Any]:
    RESULTS.mkdir(exist_ok=True)
    logs = RESULTS / "logs"
    logs.mkdir(exist_ok=True)
    by_size: dict[str, dict[str, Any]] = {}
    for size_name in sizes:
        size = SIZES[size_name]
        say(f"{size_name}: preparing the data set")
        url, prepared = asyncio.run(prepare(size_name, reuse))
        say(f"{size_name}: {prepared}")
        try:
            load_before = os.getloadavg()
            figures = measure(url, size, rounds, logs)
            load_after = os.getloadavg()
            plan = explain_slowest(url, size, figures)
        finally:
            if not keep:
                asyncio.run(drop_database(database_name(size_name)))
        by_size[size_name] = {
            "prepared": prepared,
            "load_average": {"before": load_before, "after": load_after},
            "figures": figures,
            "explain": plan,
        }
    stamp = time.strftime("%Y%m%d-%H%M%S")
    table = report(by_size)
    say(table)
    out = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "rounds": rounds, "sizes": by_size}
    (RESULTS / f"scale-{stamp}.json").write_text(json.dumps(out, indent=2))
    (RESULTS / f"scale-{stamp}.md").write_text(
        table
        + "\n\n"
        + "\n".join(f"## {s}: slowest statement\n\n```\n{r['explain']}```\n" for s, r in by_size.items())
    )
    say(f"written {RESULTS / f'scale-{stamp}.json'} and .md")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", choices=[*SIZES, "both"], default="both")
    parser.add_argument(
        "--rounds", type=int, default=15, help="timed requests per endpoint (after 2 warm-ups)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the databases after the run")
    parser.add_argument("--reuse", action="store_true", help="measure a kept database again (no seeding)")
    args = parser.parse_args()
    sizes = list(SIZES) if args.size == "both" else [args.size]
    run(sizes, args.rounds, args.keep, args.reuse)


if __name__ == "__main__":
    main()
