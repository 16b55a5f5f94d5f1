"""ratings: satisfaction ratings (contract 17.11).

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28 15:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import app.core.types

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "claim_ratings",
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.Column("created_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.CheckConstraint("score BETWEEN 1 AND 5", name=op.f("ck_claim_ratings_score_range")),
        sa.ForeignKeyConstraint(
            ["claim_id"], ["claims.id"], name=op.f("fk_claim_ratings_claim_id_claims"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_claim_ratings_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("claim_id", name=op.f("pk_claim_ratings")),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_claim_ratings_created_at", "claim_ratings", ["created_at"])
    op.create_index(op.f("ix_claim_ratings_user_id"), "claim_ratings", ["user_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_claim_ratings_user_id"), table_name="claim_ratings")
    op.drop_index("ix_claim_ratings_created_at", table_name="claim_ratings")
    op.drop_table("claim_ratings")
