"""Ids are never handed out again on SQLite (app.core.sqlite_ids): every table SQLite creates while
migrations run with a one-integer-column key says AUTOINCREMENT, those of the migrated schema included."""

from __future__ import annotations

import asyncio

import pytest
import sqlalchemy as sa

from app.core import sqlite_ids
from app.models import Base


def _sqlite_tables(url: str) -> dict[str, str]:
    engine = sa.create_engine(url.replace("+aiosqlite", ""))
    with engine.connect() as connection:
        rows = connection.exec_driver_sql("SELECT name, sql FROM sqlite_master WHERE type = 'table'")
        found = {name: sql for name, sql in rows if not name.startswith(("sqlite_", "alembic_"))}
    engine.dispose()
    return found


async def test_every_sqlite_table_autoincrements_its_id(database_url: str, is_postgres: bool) -> None:
    if is_postgres:
        pytest.skip("PostgreSQL sequences never hand an id out twice")
    tables = await asyncio.to_thread(_sqlite_tables, database_url)
    keyed_by_id = [
        name for name, table in Base.metadata.tables.items() if [c.name for c in table.primary_key] == ["id"]
    ]
    assert len(keyed_by_id) >= 10
    assert [name for name in keyed_by_id if "AUTOINCREMENT" not in tables[name]] == []


def _created(*tables: sa.Table) -> tuple[sa.Engine, dict[str, str]]:
    engine = sa.create_engine("sqlite://")
    tables[0].metadata.create_all(engine)
    with engine.connect() as connection:
        rows = connection.exec_driver_sql("SELECT name, sql FROM sqlite_master WHERE type = 'table'")
        return engine, {name: sql for name, sql in rows}


def test_a_table_keyed_by_one_integer_gets_autoincrement_and_no_other_does() -> None:
    sqlite_ids.install()
    sqlite_ids.install()  # once per process however often migrations run: a second call changes nothing
    metadata = sa.MetaData()
    by_id = sa.Table("by_id", metadata, sa.Column("id", sa.Integer, primary_key=True))
    by_name = sa.Table("by_name", metadata, sa.Column("name", sa.String(10), primary_key=True))
    by_two = sa.Table(
        "by_two",
        metadata,
        sa.Column("a", sa.Integer, primary_key=True),
        sa.Column("b", sa.Integer, primary_key=True),
    )

    engine, created = _created(by_id, by_name, by_two)

    assert "AUTOINCREMENT" in created["by_id"]
    assert "AUTOINCREMENT" not in created["by_name"] and "AUTOINCREMENT" not in created["by_two"]
    with engine.begin() as connection:  # what it is for: the id of the deleted newest row stays unused
        connection.execute(by_id.insert(), [{"id": 1}, {"id": 2}])
        connection.execute(by_id.delete().where(by_id.c.id == 2))
        new = connection.execute(by_id.insert()).inserted_primary_key
    assert new is not None and new[0] == 3
    engine.dispose()
