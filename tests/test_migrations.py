"""Migrations: up to head, down to base and up again on a database of their own; and the models and the
migrations describe the same schema."""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.ext.asyncio import create_async_engine

from app.core.migrate import downgrade, upgrade
from app.models import Base
from tests.conftest import PG_URL, _create_pg_database, _drop_pg_database


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
