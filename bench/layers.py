"""Where a request's CPU goes: each layer measured on its own, and each endpoint in process.

    python -m bench.run --only layers

CPU time (time.process_time) per operation, so the figures hold on a busy machine: the endpoint figures
call the ASGI apps directly (no HTTP, no load generator) against the seeded PostgreSQL database, the
service cold (no page cache) and warm, and the floor app for the same work.
"""

from __future__ import annotations

import functools
import inspect
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import asyncpg
import jwt
from fastapi import Depends, FastAPI
from sqlalchemy import bindparam, select

from app.core.db import create_engine, create_read_engine, create_sessionmaker
from app.main import create_app
from app.models import User
from bench.seed import Seeded

Call = Callable[[], Awaitable[Any]]
ROUNDS = 5
POST_BODY = b'{"message": "Benchmark message: the repair is scheduled for Tuesday."}'


async def cpu_us(call: Call, n: int) -> float:
    """Microseconds of this process's CPU per call, after a warm-up."""
    for _ in range(max(20, n // 20)):
        await call()
    start = time.process_time()
    for _ in range(n):
        await call()
    return round(1e6 * (time.process_time() - start) / n, 1)


async def asgi_call(app: Any, method: str, path: str, query: str, token: str, body: bytes = b"") -> int:
    """One request through an ASGI app, in process; its status."""
    headers = [(b"host", b"bench"), (b"authorization", f"Bearer {token}".encode())]
    if body:
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
        "state": {},
    }
    messages = [{"type": "http.request", "body": body, "more_body": False}]
    status = 0

    async def receive() -> dict[str, Any]:
        return messages.pop() if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(scope, receive, send)
    return status


async def driver_and_orm(url: str, settings: Any, user_id: int, token: str) -> dict[str, float]:
    """One primary-key read of a user through each layer, and the token check."""
    figures: dict[str, float] = {}
    pool = await asyncpg.create_pool(url.replace("+asyncpg", ""), min_size=1, max_size=2)
    engine = create_engine(settings)
    reads = create_read_engine(engine)
    sessions = create_sessionmaker(reads)
    statement = select(User.__table__).where(User.__table__.c.id == bindparam("id"))
    sql = "SELECT * FROM users WHERE id = $1"
    try:
        async with pool.acquire() as held, reads.connect() as connection:
            figures["asyncpg: statement on a held connection"] = await cpu_us(
                lambda: held.fetchrow(sql, user_id), 2000
            )
            figures["SQLAlchemy Core: statement on a held connection"] = await cpu_us(
                lambda: connection.execute(statement, {"id": user_id}), 2000
            )

        async def pool_read() -> None:
            async with pool.acquire() as conn:
                await conn.fetchrow(sql, user_id)

        async def engine_read() -> None:
            async with reads.connect() as conn:
                await conn.execute(statement, {"id": user_id})

        async def orm_read() -> None:
            async with sessions() as session:
                await session.get(User, user_id)

        figures["asyncpg: pool checkout + statement"] = await cpu_us(pool_read, 2000)
        figures["SQLAlchemy Core: checkout + statement"] = await cpu_us(engine_read, 2000)
        figures["SQLAlchemy ORM: session + session.get(User)"] = await cpu_us(orm_read, 2000)
    finally:
        await pool.close()
        await engine.dispose()
    assert settings.secret_key is not None
    key = settings.secret_key.get_secret_value().encode()

    async def verify() -> None:
        jwt.decode(token, key, algorithms=["HS256"], options={"require": ["exp", "iat", "sub"]})

    figures["PyJWT: verify an access token"] = await cpu_us(verify, 5000)
    figures["FastAPI: each extra dependency of a route"] = await dependency_cost()
    return figures


async def dependency_cost() -> float:
    """(a route with 11 trivial dependencies - a route with 1) / 10, in process."""
    app = FastAPI()
    app.get("/one")(_route_with(1))
    app.get("/eleven")(_route_with(11))
    one = await cpu_us(lambda: asgi_call(app, "GET", "/one", "", ""), 3000)
    eleven = await cpu_us(lambda: asgi_call(app, "GET", "/eleven", "", ""), 3000)
    return round((eleven - one) / 10, 1)


def _route_with(count: int) -> Callable[..., Awaitable[dict[str, int]]]:
    async def endpoint(**_: int) -> dict[str, int]:
        return {}

    # Distinct callables: FastAPI resolves a dependency that appears twice only once.
    parameters = [
        inspect.Parameter(
            f"d{n}", inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[int, Depends(_leaf(n))]
        )
        for n in range(count)
    ]
    endpoint.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    return endpoint


def _leaf(value: int) -> Callable[[], Awaitable[int]]:
    async def leaf() -> int:
        return value

    return leaf


async def endpoints(settings: Any, seeded: Seeded, token: str) -> dict[str, dict[str, float]]:
    """CPU per request of each measured endpoint: service cold, service warm, floor."""
    import bench.floor as floor

    paths = {
        "GET products page": ("GET", "/api/products", "page=1&limit=20", b""),
        "GET claim detail": ("GET", f"/api/claims/{seeded.quiet_claim_id}", "", b""),
        "GET messages page of 50": (
            "GET",
            f"/api/claims/{seeded.busy_claim_id}/messages",
            "page=1&limit=50",
            b"",
        ),
        "POST message": ("POST", f"/api/claims/{seeded.write_claim_id}/messages", "", POST_BODY),
    }
    cold = create_app(settings.model_copy(update={"cache_ttl": 0.0}))
    warm = create_app(settings)
    figures: dict[str, dict[str, float]] = {}
    async with (
        cold.router.lifespan_context(cold),
        warm.router.lifespan_context(warm),
        floor.app.router.lifespan_context(floor.app),
    ):
        for label, (method, path, query, body) in paths.items():
            apps = {"service, cache cold": cold, "floor": floor.app}
            if method == "GET" and "detail" not in label:
                apps["service, cache warm"] = warm
            # Alternated rounds, the median of each: the figures move with the machine between rounds.
            rounds: dict[str, list[float]] = {name: [] for name in apps}
            for _ in range(ROUNDS):
                for name, app in apps.items():
                    call = functools.partial(asgi_call, app, method, path, query, token, body)
                    rounds[name].append(await cpu_us(call, 300))
            row = {name: statistics.median(figures) for name, figures in rounds.items()}
            row["cold / floor"] = round(row["floor"] / row["service, cache cold"], 2)
            if "service, cache warm" in row:
                row["warm / floor"] = round(row["floor"] / row["service, cache warm"], 2)
            figures[label] = row
    return figures


async def run_layers() -> dict[str, Any]:
    from bench.run import SECRET, create_database, drop_database, prepare, settings_for, token_for

    name = "warranty_bench_layers"
    url = await create_database(name)
    try:
        seeded = await prepare(url)
        # The floor app reads these when imported.
        os.environ.update(WARRANTY_DATABASE_URL=url, WARRANTY_SECRET_KEY=SECRET)
        settings = settings_for(url, run_worker=False, log_level="WARNING", access_token_ttl=86_400)
        token = token_for(url, seeded.customer_id, ["ROLE_USER"])
        figures: dict[str, dict[str, Any]] = {
            "layers (us of CPU per operation)": await driver_and_orm(
                url, settings, seeded.customer_id, token
            ),
            "endpoints in process (us of CPU per request)": await endpoints(settings, seeded, token),
        }
    finally:
        await drop_database(name)
    for section, rows in figures.items():
        print(section)
        for label, value in rows.items():
            print(f"  {label}: {value}", flush=True)
    return figures
