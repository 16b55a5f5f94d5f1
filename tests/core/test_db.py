"""Sessions and connections: reads never write, and a pooled connection the server dropped is replaced."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select, text, update
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from app.api.dependencies import SessionDep
from app.core import db
from app.models import CacheInvalidation, User
from tests.factories.users import auth_headers, create_user


async def _invalidations(app: FastAPI) -> int:
    async with app.state.sessionmaker() as session:
        return int(await session.scalar(select(func.count()).select_from(CacheInvalidation)) or 0)


async def test_a_get_request_that_writes_fails_and_writes_nothing(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app, name="Ann")

    async def adds_a_row(session: SessionDep) -> dict[str, Any]:
        session.add(CacheInvalidation(scope="test"))
        return {}

    async def updates_a_row(session: SessionDep) -> dict[str, Any]:
        await session.execute(update(User).where(User.id == user.id).values(name="Changed"))
        return {}

    app.router.add_api_route("/api/test/adds", adds_a_row, methods=["GET"])
    app.router.add_api_route("/api/test/updates", updates_a_row, methods=["GET"])
    before = await _invalidations(app)

    for path in ("/api/test/adds", "/api/test/updates"):
        response = await client.get(path)
        assert response.status_code == 500 and response.json()["code"] == "INTERNAL_ERROR"

    assert await _invalidations(app) == before
    async with app.state.sessionmaker() as session:
        assert await session.scalar(select(User.name).where(User.id == user.id)) == "Ann"


@pytest.mark.postgres_only
async def test_pooled_connections_the_server_dropped_are_replaced(
    app: FastAPI, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = await create_user(app)
    headers = auth_headers(app, user)
    assert (await client.get("/api/me", headers=headers)).status_code == 200
    monkeypatch.setattr(db, "PING_IDLE_AFTER", 0.0)  # every pooled connection counts as idle

    outside = create_async_engine(app.state.settings.database_url, poolclass=NullPool)
    async with outside.connect() as connection:  # drops every connection of the app to this database
        dropped = await connection.scalar(
            text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        )
    await outside.dispose()
    assert dropped

    assert (await client.get("/api/me", headers=headers)).status_code == 200
