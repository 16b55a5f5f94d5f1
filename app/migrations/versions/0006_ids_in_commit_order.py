"""Event and cache-invalidation ids in commit order (PostgreSQL).

A row's id is taken again when its transaction commits, under one transaction-scoped advisory lock, by a
deferred constraint trigger: ids then increase in the order transactions commit, and when an id is
visible every lower one is visible too or never will be. The id given at INSERT only lives inside its
transaction. The trigger on events also sends the hub's NOTIFY. SQLite needs none of this: its writers
take the database's write lock at BEGIN, so they commit in the order they take ids.
See docs/architecture.md, "Event ordering".

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24 11:30:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# app.core.commit_order.LOCK_KEY and app.realtime.publishing.NOTIFY_CHANNEL, as they were when this ran.
LOCK_KEY = 7_741_265_350_001
CHANNEL = "warranty_events"

TABLES = {"events": True, "cache_invalidations": False}  # table -> sends NOTIFY


def _function(table: str, notify: bool) -> str:
    notify_line = f"PERFORM pg_notify('{CHANNEL}', '');" if notify else ""
    return f"""
CREATE FUNCTION {table}_id_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock({LOCK_KEY});
    UPDATE {table} SET id = nextval(pg_get_serial_sequence('{table}', 'id')) WHERE id = NEW.id;
    {notify_line}
    RETURN NULL;
END
$$"""


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, notify in TABLES.items():
        op.execute(_function(table, notify))
        op.execute(
            f"CREATE CONSTRAINT TRIGGER {table}_id_at_commit AFTER INSERT ON {table} "
            f"DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {table}_id_at_commit()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in TABLES:
        op.execute(f"DROP TRIGGER {table}_id_at_commit ON {table}")
        op.execute(f"DROP FUNCTION {table}_id_at_commit()")
