"""REST figures: each endpoint on the service and on the floor app, alternating, in the same run."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from bench import harness
from bench.run import create_database, drop_database, prepare, service_env, token_for

HERE = Path(__file__).resolve().parent
CONNECTIONS = 20
ROUNDS = 2
LOGIN = "POST login (Argon2id by design)"


def _pair(
    service: harness.Server,
    floor: harness.Server,
    path: str,
    headers: dict[str, str],
    seconds: int,
    script: Path | None = None,
) -> dict[str, Any]:
    service_runs, floor_runs = [], []
    for _ in range(ROUNDS):  # alternate, so drift in the machine's load hits both alike
        floor_runs.append(
            harness.wrk(
                floor.url + path, headers=headers, seconds=seconds, connections=CONNECTIONS, script=script
            )
        )
        service_runs.append(
            harness.wrk(
                service.url + path, headers=headers, seconds=seconds, connections=CONNECTIONS, script=script
            )
        )
    service_rps = statistics.mean(run.requests_per_second for run in service_runs)
    floor_rps = statistics.mean(run.requests_per_second for run in floor_runs)
    return {
        "service": service_runs[-1].as_dict() | {"rps": round(service_rps, 1)},
        "floor": floor_runs[-1].as_dict() | {"rps": round(floor_rps, 1)},
        "ratio": round(service_rps / floor_rps, 2),
        "errors": sum(run.errors for run in service_runs + floor_runs),
    }


def _selected(label: str, cases: list[str] | None) -> bool:
    return cases is None or any(case.strip().lower() in label.lower() for case in cases)


async def run_rest(seconds: int, logs: Path, cases: list[str] | None = None) -> dict[str, Any]:
    """`cases`: only the endpoints whose label contains one of these (any case); None for all."""
    name = "warranty_bench_rest"
    url = await create_database(name)
    results: dict[str, Any] = {}
    try:
        seeded = await prepare(url)
        headers = {"Authorization": f"Bearer {token_for(url, seeded.customer_id, ['ROLE_USER'])}"}
        products = "/api/products?page=1&limit=20"
        detail = f"/api/claims/{seeded.quiet_claim_id}"
        messages = f"/api/claims/{seeded.busy_claim_id}/messages?page=1&limit=50"
        post = f"/api/claims/{seeded.write_claim_id}/messages"
        for workers in (1, 2):
            env = service_env(url, WARRANTY_RUN_WORKER="false")
            servers = {
                "floor": harness.uvicorn(
                    "bench.floor:app", harness.free_port(), workers, env, logs / f"floor-{workers}.log"
                ),
                "cold": harness.uvicorn(
                    "app.main:app",
                    harness.free_port(),
                    workers,
                    env | {"WARRANTY_CACHE_TTL": "0"},
                    logs / f"cold-{workers}.log",
                ),
                "warm": harness.uvicorn(
                    "app.main:app", harness.free_port(), workers, env, logs / f"warm-{workers}.log"
                ),
            }
            try:
                floor, cold, warm = servers["floor"], servers["cold"], servers["warm"]
                pairs = {
                    "GET products page (cache cold)": (cold, products, None),
                    "GET products page (cache warm)": (warm, products, None),
                    "GET claim detail": (cold, detail, None),
                    "GET messages page of 50 (cache cold)": (cold, messages, None),
                    "GET messages page of 50 (cache warm)": (warm, messages, None),
                    "POST message": (cold, post, HERE / "post_message.lua"),
                }
                figures = {
                    label: _pair(server, floor, path, headers, seconds, script)
                    for label, (server, path, script) in pairs.items()
                    if _selected(label, cases)
                }
                if _selected(LOGIN, cases):
                    figures[LOGIN] = {
                        "service": harness.wrk(
                            cold.url + "/api/login",
                            headers={},
                            seconds=seconds,
                            connections=4,
                            script=HERE / "login.lua",
                        ).as_dict()
                    }
            finally:
                for server in servers.values():
                    server.stop()
            for label, figure in figures.items():
                print(f"{workers} worker(s) | {label}: {figure}", flush=True)
            results[f"{workers} worker{'s' if workers > 1 else ''}"] = figures
    finally:
        await drop_database(name)
    return results
