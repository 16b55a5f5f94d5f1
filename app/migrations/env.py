"""Alembic environment: async engine, batch mode on SQLite so ALTERs work there too."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping
from logging.config import fileConfig
from typing import Any

from alembic import context
from alembic.runtime.migration import MigrationContext, MigrationInfo
from sqlalchemy import event, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

import app.models
from app.config import Settings
from app.core import sqlite_ids
from app.core.db import create_engine
from app.core.migrate import MIGRATION_LOCK_KEY
from app.derived.count_triggers import ensure_count_triggers

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = app.models.Base.metadata
sqlite_ids.install()  # tables rebuilt by batch migrations keep AUTOINCREMENT on SQLite


def _database_url() -> str:
    return config.attributes.get("database_url") or Settings().database_url


def _record_applied(
    ctx: MigrationContext, step: MigrationInfo, heads: Collection[Any], run_args: Mapping[str, Any]
) -> None:
    """What `upgrade()` answers: the revisions this run applied."""
    applied = config.attributes.get("applied")
    if applied is not None and step.is_upgrade and step.up_revision_id:
        applied.append(step.up_revision_id)


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        on_version_apply=_record_applied,
    )


def _run_sync(connection: Connection) -> None:
    _configure(connection)
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # Held until this transaction ends; the version is read after it is granted, so a process that
            # waited finds the schema another one has just migrated and applies nothing.
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
        context.run_migrations()
        ensure_count_triggers(connection)  # a SQLite table rebuild drops them


def _without_foreign_keys(engine: AsyncEngine) -> None:
    """Migrations rebuild SQLite tables (batch mode: copy, drop, rename); with foreign keys on, dropping
    a parent would cascade into its children. Off for the run, as SQLite's ALTER TABLE guide says (a
    pragma only takes effect outside a transaction: here, on connect)."""

    @event.listens_for(engine.sync_engine, "connect")
    def _off(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=OFF")
        cursor.close()


async def _run_online() -> None:
    engine = create_engine(Settings(database_url=_database_url()))
    if engine.dialect.name == "sqlite":
        _without_foreign_keys(engine)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run_sync)
            await connection.commit()
    finally:
        await engine.dispose()


if context.is_offline_mode():
    context.configure(url=_database_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    asyncio.run(_run_online())
