"""Test wiring: a real database (SQLite by default; PostgreSQL when WARRANTY_TEST_DATABASE_URL is set, in a
database created for this run and dropped after), schema by Alembic, one app per test."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine

from app.config import Settings
from app.core.migrate import upgrade
from app.main import create_app
from app.models import Base
from tests.support.object_store import Bucket, moto_server, new_bucket

# Fixtures shared by several packages, defined beside the stand-ins they run.
pytest_plugins = [
    "tests.support.smtp",
    "tests.support.gorush",
    "tests.support.workers",
    "tests.support.push_service",
    "tests.support.ntfy",
]

TEST_SECRET = "test-secret-key-long-enough-for-any-hmac-algorithm-0123456789abcdef"
PG_URL = os.environ.get("WARRANTY_TEST_DATABASE_URL")


def pytest_report_header() -> str:
    return f"database: {'PostgreSQL' if PG_URL else 'SQLite'}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if PG_URL:
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL: set WARRANTY_TEST_DATABASE_URL")
    for item in items:
        if "postgres_only" in item.keywords:
            item.add_marker(skip)


async def _create_pg_database(server_url: str) -> str:
    url = make_url(server_url)
    name = f"{url.database or 'warranty'}_t{uuid.uuid4().hex[:10]}"
    engine = create_async_engine(url, isolation_level="AUTOCOMMIT")
    async with engine.connect() as connection:
        await connection.execute(text(f'CREATE DATABASE "{name}"'))
    await engine.dispose()
    return url.set(database=name).render_as_string(hide_password=False)


async def _drop_pg_database(server_url: str, database_url: str) -> None:
    name = make_url(database_url).database
    engine = create_async_engine(make_url(server_url), isolation_level="AUTOCOMMIT")
    async with engine.connect() as connection:
        await connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    await engine.dispose()


@pytest.fixture(scope="session")
async def database_url(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    if PG_URL:
        url = await _create_pg_database(PG_URL)
    else:
        url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('db') / 'warranty.db'}"
    await asyncio.to_thread(upgrade, url)
    yield url
    if PG_URL:
        await _drop_pg_database(PG_URL, url)


@pytest.fixture(scope="session")
def is_postgres(database_url: str) -> bool:
    return database_url.startswith("postgresql")


async def _empty_all_tables(database_url: str) -> None:
    engine = create_async_engine(database_url)
    tables = [table.name for table in reversed(Base.metadata.sorted_tables)]
    async with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            await connection.execute(text(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE"))
        else:
            for table in tables:
                await connection.execute(text(f"DELETE FROM {table}"))
            # Last: the deletes above went through the row-count triggers.
            await connection.execute(text("DELETE FROM row_counts"))
            await connection.execute(text("DELETE FROM product_expiry_counts"))
    await engine.dispose()


SettingsFactory = Callable[..., Settings]


@pytest.fixture
def make_settings(database_url: str, tmp_path: Path) -> SettingsFactory:
    """Settings for a test app; keyword arguments override single settings."""

    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "env": "test",
            "database_url": database_url,
            "data_dir": tmp_path / "data",
            "secret_key": TEST_SECRET,
            # Real Argon2id, at a cost that keeps the suite fast.
            "argon2_time_cost": 1,
            "argon2_memory_cost": 1024,
            "argon2_parallelism": 1,
            "run_worker": False,
            "sse_heartbeat": 1.0,
        }
        values.update(overrides)
        return Settings(_env_file=None, **values)  # type: ignore[call-arg]

    return make


@pytest.fixture
def settings(make_settings: SettingsFactory, request: pytest.FixtureRequest) -> Settings:
    """`@pytest.mark.settings(name=value, ...)` on a test overrides single settings of its app."""
    marker = request.node.get_closest_marker("settings")
    return make_settings(**(marker.kwargs if marker else {}))


@pytest.fixture
async def app(settings: Settings, database_url: str) -> AsyncIterator[FastAPI]:
    await _empty_all_tables(database_url)
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as test_client:
        yield test_client


@pytest.fixture
def sessionmaker(app: FastAPI) -> async_sessionmaker[AsyncSession]:
    """Sessions on the app's own engine, for factories and for checking what was stored."""
    maker: async_sessionmaker[AsyncSession] = app.state.sessionmaker
    return maker


@pytest.fixture(scope="session")
def s3_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """moto's S3 server on 127.0.0.1 (tests/support/object_store.py), started by the first test that
    needs it."""
    with moto_server(tmp_path_factory.mktemp("moto") / "moto.log") as endpoint:
        yield endpoint


@pytest.fixture
def bucket(s3_endpoint: str) -> Bucket:
    """An empty bucket of the test's own on that server."""
    return new_bucket(s3_endpoint)


@pytest.fixture
def anyio_backend() -> Iterator[str]:
    yield "asyncio"
