"""Liveness and readiness (app/health.py): `/health` answers while the process lives; `/health/ready` only
while the database answers and the process is not shutting down, else 503 with Retry-After."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.helpers import assert_error


async def test_health_and_readiness(client: httpx.AsyncClient) -> None:
    assert (await client.get("/health")).json() == {"status": "ok"}
    assert (await client.get("/health/ready")).json() == {"status": "ready"}


@pytest.mark.settings(database_url="postgresql+asyncpg://postgres@127.0.0.1:9/unreachable")
async def test_readiness_fails_without_a_database(client: httpx.AsyncClient) -> None:
    assert (await client.get("/health")).status_code == 200
    assert_error(await client.get("/health/ready"), 503, "SERVICE_UNAVAILABLE")


async def test_readiness_fails_once_the_process_drains(app: FastAPI, client: httpx.AsyncClient) -> None:
    app.state.draining = True

    ready = await client.get("/health/ready")

    body = assert_error(ready, 503, "SERVICE_UNAVAILABLE")
    assert body["message"] == "The server is shutting down." and ready.headers["retry-after"] == "5"
    assert (await client.get("/health")).json() == {"status": "ok"}
