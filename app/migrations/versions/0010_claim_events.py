"""claim_events: each claim's timeline (docs/api.md §14), deleted with its claim.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24 14:45:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import app.core.types

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "claim_events",
        sa.Column("id", ID, nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("actor_id", sa.Integer(), nullable=True),
        sa.Column("actor_role", sa.String(length=16), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["claim_id"], ["claims.id"], name=op.f("fk_claim_events_claim_id_claims"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["actor_id"], ["users.id"], name=op.f("fk_claim_events_actor_id_users"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_claim_events")),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_claim_events_claim_id_id", "claim_events", ["claim_id", "id"], unique=False)
    op.create_index(op.f("ix_claim_events_actor_id"), "claim_events", ["actor_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_claim_events_actor_id"), table_name="claim_events")
    op.drop_index("ix_claim_events_claim_id_id", table_name="claim_events")
    op.drop_table("claim_events")
