"""mercure_updates: published Mercure updates (contract 20).

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-28 15:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A published update's id (the publisher's, or one the hub made up): unique, so that it names one
    # point of the history a subscriber resumes from. NULL for the service's own events.
    op.add_column("events", sa.Column("update_id", sa.String(length=255), nullable=True))
    op.create_index("ix_events_update_id", "events", ["update_id"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_events_update_id", table_name="events")
    # Published updates go with the column: the service's own events stay (their ids, their order).
    op.execute("DELETE FROM events WHERE update_id IS NOT NULL")
    op.drop_column("events", "update_id")
