"""Ids are never given again after a delete, on SQLite too: every table keyed by an integer id becomes
AUTOINCREMENT (SQLite otherwise hands out max(id) + 1, the id of the row deleted last). PostgreSQL's
sequences never go back already: nothing to do there.

SQLite cannot add AUTOINCREMENT to a table, so each table is rebuilt (batch mode: create, copy, drop,
rename), with foreign keys off for the run (app/migrations/env.py) so dropping a parent cascades nothing.
Later rebuilds keep AUTOINCREMENT (app/core/sqlite_ids.py), so the downgrade leaves it: ids that never
repeat are no schema an older version could mind.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24 11:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _integer_keyed_tables(bind: sa.Connection) -> list[str]:
    """Tables whose primary key is one INTEGER column (the only kind SQLite autoincrements)."""
    inspector = sa.inspect(bind)
    found = []
    for name in inspector.get_table_names():
        if name == "alembic_version":
            continue
        key = inspector.get_pk_constraint(name)["constrained_columns"]
        columns = {column["name"]: column for column in inspector.get_columns(name)}
        if len(key) == 1 and isinstance(columns[key[0]]["type"], sa.Integer):
            found.append(name)
    return found


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return
    for name in _integer_keyed_tables(bind):
        sql = bind.exec_driver_sql(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
        ).scalar_one()
        if "AUTOINCREMENT" not in sql.upper():
            with op.batch_alter_table(name, recreate="always", table_kwargs={"sqlite_autoincrement": True}):
                pass
    problems = bind.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if problems:
        raise RuntimeError(f"foreign keys broken by the rebuild: {problems[:5]}")


def downgrade() -> None:
    pass
