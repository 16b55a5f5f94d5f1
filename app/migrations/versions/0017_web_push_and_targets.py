"""web_push_and_targets: Web Push subscriptions and notification targets (contract 19).

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28 15:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import app.core.types

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "web_push_subscriptions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("endpoint", sa.Text(), nullable=False),
        sa.Column("p256dh", sa.String(length=100), nullable=False),
        sa.Column("auth", sa.String(length=32), nullable=False),
        sa.Column("expires_at", app.core.types.UtcDateTime(timezone=True), nullable=True),
        sa.Column("created_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_web_push_subscriptions_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_push_subscriptions")),
        sa.UniqueConstraint("endpoint", name=op.f("uq_web_push_subscriptions_endpoint")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_web_push_subscriptions_user_id"), "web_push_subscriptions", ["user_id"])
    op.create_table(
        "notification_targets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("scheme", sa.String(length=16), nullable=False),
        sa.Column("redacted", sa.String(length=300), nullable=False),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("created_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_notification_targets_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notification_targets")),
        sa.UniqueConstraint("user_id", "fingerprint", name=op.f("uq_notification_targets_user_id")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_notification_targets_user_id"), "notification_targets", ["user_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_notification_targets_user_id"), table_name="notification_targets")
    op.drop_table("notification_targets")
    op.drop_index(op.f("ix_web_push_subscriptions_user_id"), table_name="web_push_subscriptions")
    op.drop_table("web_push_subscriptions")
