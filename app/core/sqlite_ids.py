"""Ids are never given to a new row after a delete. PostgreSQL's sequences never go back; SQLite hands
out max(id) + 1 unless a table says AUTOINCREMENT. Migration 0003 rebuilt every table with it, and the
models declare it (app/models/__init__.py), but SQLite cannot alter a table: a later migration in batch
mode rebuilds it from reflection, which does not carry AUTOINCREMENT. So while migrations run, every table
SQLite creates with a one-integer-column key gets it (`install` is called by app/migrations/env.py)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Integer, Table, event


def _autoincrement(table: Table, connection: Any, **_kw: Any) -> None:
    key = list(table.primary_key.columns)
    if connection.dialect.name == "sqlite" and len(key) == 1 and isinstance(key[0].type, Integer):
        table.dialect_kwargs["sqlite_autoincrement"] = True


def install() -> None:
    """Idempotent: the listener is registered once per process however often migrations run."""
    if not event.contains(Table, "before_create", _autoincrement):
        event.listen(Table, "before_create", _autoincrement)
