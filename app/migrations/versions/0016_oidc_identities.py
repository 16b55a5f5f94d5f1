"""oidc_identities: identity-provider links and the one-time sign-in codes (contract 18).

An account created through a provider has no password: its `password_hash` is the empty string, which no
password verifies (app.core.security verifies against a random dummy hash then), so `users` is not rebuilt.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28 15:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import app.core.types

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "user_identities",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("provider", sa.String(length=64), nullable=False),
        sa.Column("issuer", sa.String(length=255), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("created_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_user_identities_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_user_identities")),
        sa.UniqueConstraint("issuer", "subject", name="uq_user_identities_issuer_subject"),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_user_identities_user_id"), "user_identities", ["user_id"])
    op.create_table(
        "oidc_login_codes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("expires_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.Column("used_at", app.core.types.UtcDateTime(timezone=True), nullable=True),
        sa.Column("created_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_oidc_login_codes_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_oidc_login_codes")),
        sa.UniqueConstraint("code_hash", name=op.f("uq_oidc_login_codes_code_hash")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_oidc_login_codes_user_id"), "oidc_login_codes", ["user_id"])
    op.create_index(op.f("ix_oidc_login_codes_expires_at"), "oidc_login_codes", ["expires_at"])


def downgrade() -> None:
    op.drop_table("oidc_login_codes")
    op.drop_table("user_identities")
