"""outbox.request_id: the request that caused the notification, named in the worker's log lines and sent
to the push gateway as X-Request-ID (docs/api.md §1).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24 14:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch_op:
        batch_op.add_column(sa.Column("request_id", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch_op:
        batch_op.drop_column("request_id")
