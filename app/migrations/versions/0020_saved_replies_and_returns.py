"""saved_replies_and_returns: saved replies and return authorisations (contract 17.9, 17.10).

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-28 15:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import app.core.types

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    _saved_replies()
    _return_authorizations()


def _saved_replies() -> None:
    op.create_table(
        "saved_replies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("organization_id", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("updated_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.Column("created_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_saved_replies_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_saved_replies")),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_saved_replies_organization_id_id", "saved_replies", ["organization_id", "id"])


def _return_authorizations() -> None:
    op.create_table(
        "return_authorizations",
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.String(length=32), nullable=False),
        sa.Column("issued_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.Column("issued_by", sa.Integer(), nullable=True),
        sa.Column("instructions", sa.Text(), nullable=True),
        sa.Column("label_key", sa.String(length=255), nullable=True),
        sa.Column("label_name", sa.String(length=255), nullable=True),
        sa.Column("label_size", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["claim_id"],
            ["claims.id"],
            name=op.f("fk_return_authorizations_claim_id_claims"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["issued_by"],
            ["users.id"],
            name=op.f("fk_return_authorizations_issued_by_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("claim_id", name=op.f("pk_return_authorizations")),
        sa.UniqueConstraint("number", name=op.f("uq_return_authorizations_number")),
        sqlite_autoincrement=True,
    )
    # Not tied to any claim: a number stays given when its claim is deleted.
    op.create_table(
        "rma_counters",
        sa.Column("year", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("last", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("year", name=op.f("pk_rma_counters")),
        sqlite_autoincrement=True,
    )


def downgrade() -> None:
    op.drop_table("rma_counters")
    op.drop_table("return_authorizations")
    op.drop_index("ix_saved_replies_organization_id_id", table_name="saved_replies")
    op.drop_table("saved_replies")
