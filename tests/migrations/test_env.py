"""The migrations (app/migrations: env.py and every revision under versions/): up to head, down to base and
up again on a database of their own; the models and the migrations describe the same schema; replicas that
start together migrate once; a SQLite table rebuilt by a revision keeps its rows and foreign keys."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine

from app.core.migrate import MIGRATION_LOCK_KEY, downgrade, upgrade
from app.models import Base
from tests.conftest import PG_URL, _create_pg_database, _drop_pg_database
from tests.test_cli import run_cli


async def _table_names(url: str) -> set[str]:
    engine = create_async_engine(url)
    async with engine.connect() as connection:
        names = await connection.run_sync(lambda sync: set(inspect(sync).get_table_names()))
    await engine.dispose()
    return names - {"alembic_version"}


async def test_upgrade_downgrade_upgrade(tmp_path: Path) -> None:
    url = await _create_pg_database(PG_URL) if PG_URL else f"sqlite+aiosqlite:///{tmp_path / 'm.db'}"
    try:
        await asyncio.to_thread(upgrade, url)
        assert await _table_names(url) == set(Base.metadata.tables)
        await asyncio.to_thread(downgrade, url, "base")
        assert await _table_names(url) == set()
        await asyncio.to_thread(upgrade, url)
        assert await _table_names(url) == set(Base.metadata.tables)
    finally:
        if PG_URL:
            await _drop_pg_database(PG_URL, url)


# Neither side's reflection compares an index on an expression (lower(name)); the others are compared.
@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
@pytest.mark.filterwarnings("ignore:autogenerate skipping metadata-specified expression-based index")
async def test_models_and_migrations_agree(database_url: str) -> None:
    engine = create_async_engine(database_url)
    async with engine.connect() as connection:
        differences = await connection.run_sync(
            lambda sync: compare_metadata(
                MigrationContext.configure(sync, opts={"compare_type": True}), Base.metadata
            )
        )
    await engine.dispose()
    assert differences == []


@pytest.mark.postgres_only
async def test_replicas_starting_together_migrate_once() -> None:
    """Two `warranty migrate` on one empty database: both wait for the advisory lock (held here until both
    are queued on it), then one migrates and the other finds nothing to do."""
    assert PG_URL
    url = await _create_pg_database(PG_URL)
    holder = create_async_engine(url)
    try:
        async with holder.connect() as connection:
            await connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
            runs = [asyncio.create_task(run_cli(url, "migrate")) for _ in range(2)]
            await _until_waiting_for_the_lock(connection, count=2)
            await connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK_KEY})
            results = await asyncio.gather(*runs)
    finally:
        await holder.dispose()
    try:
        assert [result.returncode for result in results] == [0, 0], [r.stderr for r in results]
        outputs = sorted(result.stdout for result in results)
        assert outputs[0].startswith("applied migration(s) 0001"), outputs
        assert outputs[1].startswith("nothing to do"), outputs
        assert await _table_names(url) == set(Base.metadata.tables)
    finally:
        await _drop_pg_database(PG_URL, url)


async def _until_waiting_for_the_lock(connection: AsyncConnection, count: int) -> None:
    waiting = text(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = "
        "(SELECT oid FROM pg_database WHERE datname = current_database())"
    )
    async with asyncio.timeout(60):
        while True:
            if (await connection.execute(waiting)).scalar_one() >= count:
                return
            await asyncio.sleep(0.05)


async def test_the_migration_keeps_rows_and_foreign_keys(tmp_path: Path, is_postgres: bool) -> None:
    if is_postgres:
        pytest.skip("the rebuild is SQLite's")
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    await asyncio.to_thread(upgrade, url, "0002")
    engine = create_async_engine(url)
    user_columns = "email, name, password_hash, roles, notifications_enabled, email_notifications_enabled"
    async with engine.begin() as connection:
        await connection.exec_driver_sql(
            f"INSERT INTO users (id, {user_columns}, updated_at, created_at) "
            "VALUES (7, 'a@example.com', 'A', 'x', '[]', 1, 1, '2026-01-01', '2026-01-01')"
        )
        await connection.exec_driver_sql(
            "INSERT INTO device_tokens (user_id, token, platform, created_at) "
            "VALUES (7, 't', 'ios', '2026-01-01')"
        )
    await asyncio.to_thread(upgrade, url)
    async with engine.begin() as connection:
        await connection.exec_driver_sql("PRAGMA foreign_keys=ON")
        assert (await connection.exec_driver_sql("SELECT count(*) FROM device_tokens")).scalar() == 1
        await connection.exec_driver_sql("DELETE FROM users WHERE id = 7")
        assert (await connection.exec_driver_sql("SELECT count(*) FROM device_tokens")).scalar() == 0
        await connection.exec_driver_sql(
            f"INSERT INTO users ({user_columns}, updated_at, created_at) "
            "VALUES ('b@example.com', 'B', 'x', '[]', 1, 1, '2026-01-01', '2026-01-01')"
        )
        assert (await connection.exec_driver_sql("SELECT max(id) FROM users")).scalar() == 8
    await engine.dispose()


async def test_claims_get_their_search_text_from_their_product(tmp_path: Path, is_postgres: bool) -> None:
    """Revision 0022 fills the search text of the claims already there (the queue's `q` reads it)."""
    if is_postgres:
        assert PG_URL is not None
        url = await _create_pg_database(PG_URL)
    else:
        url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    try:
        await asyncio.to_thread(upgrade, url, "0021")
        engine = create_async_engine(url)
        async with engine.begin() as connection:
            for statement in _ONE_CLAIM:
                await connection.execute(text(statement))
        await asyncio.to_thread(upgrade, url)
        async with engine.begin() as connection:
            stored = (await connection.execute(text("SELECT search_text FROM claims"))).scalar_one()
        await engine.dispose()
        assert stored == "big washer\nit leaks."
    finally:
        if is_postgres:
            await _drop_pg_database(PG_URL, url)


_NOW = "'2026-01-01 00:00:00+00'"
_ONE_CLAIM = (
    "INSERT INTO users (id, email, name, password_hash, roles, notifications_enabled, "
    f"email_notifications_enabled, credential_version, updated_at, created_at) "
    f"VALUES (7, 'a@example.com', 'A', 'x', '[]', true, true, 0, {_NOW}, {_NOW})",
    "INSERT INTO products (id, owner_id, name, brand, category, purchase_date, warranty_period_months, "
    f"warranty_expires_on, updated_at, created_at) "
    f"VALUES (3, 7, 'Big Washer', 'Acme', 'home', '2026-01-01', 24, '2028-01-01', {_NOW}, {_NOW})",
    "INSERT INTO claims (id, product_id, customer_id, status, description, updated_at, created_at) "
    f"VALUES (5, 3, 7, 'open', 'It LEAKS.', {_NOW}, {_NOW})",
)
