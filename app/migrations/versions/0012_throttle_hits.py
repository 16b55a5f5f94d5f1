"""throttle_hits: every throttle's counted requests in one table (docs/api.md §3); login_failures folds in.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24 14:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import app.core.types

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "throttle_hits",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("bucket", sa.String(length=32), nullable=False),
        sa.Column("key", sa.String(length=320), nullable=False),
        sa.Column("created_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_throttle_hits")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("throttle_hits", schema=None) as batch_op:
        batch_op.create_index("ix_throttle_hits_bucket_created", ["bucket", "created_at"], unique=False)
        batch_op.create_index(
            "ix_throttle_hits_bucket_key_created", ["bucket", "key", "created_at"], unique=False
        )
    # Failures still in their window are few and short-lived (5 minutes): they are not carried over.
    op.drop_table("login_failures")


def downgrade() -> None:
    op.create_table(
        "login_failures",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("email", sa.String(length=255), nullable=False),
        sa.Column("client", sa.String(length=64), nullable=False),
        sa.Column("created_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_failures")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("login_failures", schema=None) as batch_op:
        batch_op.create_index("ix_login_failures_client_created", ["client", "created_at"], unique=False)
        batch_op.create_index(
            "ix_login_failures_email_client_created", ["email", "client", "created_at"], unique=False
        )
    op.drop_table("throttle_hits")
