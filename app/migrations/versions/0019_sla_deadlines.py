"""sla_deadlines: deadlines per organisation and per claim (contract 17.8).

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-28 15:00:00
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

import app.core.types

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NO_DEADLINE = datetime(9999, 12, 31, tzinfo=UTC)  # app.organizations.deadlines.NO_DEADLINE, as it is today
_FIRST_RESPONSE_OPEN = "first_responded_at IS NULL AND first_response_breached_at IS NULL"
_RESOLUTION_OPEN = "resolved_at IS NULL AND resolution_breached_at IS NULL"


def upgrade() -> None:
    _organization_settings()
    _claim_deadlines()


def _organization_settings() -> None:
    with op.batch_alter_table("organizations") as batch_op:
        batch_op.add_column(
            sa.Column("first_response_minutes", sa.Integer(), server_default="1440", nullable=False)
        )
        batch_op.add_column(
            sa.Column("resolution_minutes", sa.Integer(), server_default="7200", nullable=False)
        )
        batch_op.add_column(sa.Column("business_hours", sa.JSON(), nullable=True))


def _claim_deadlines() -> None:
    when = app.core.types.UtcDateTime(timezone=True)
    op.create_table(
        "claim_deadlines",
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("started_at", when, nullable=False),
        sa.Column("organization_id", sa.Integer(), nullable=False),
        sa.Column("next_due_at", when, nullable=False),
        sa.Column("first_response_due_at", when, nullable=True),
        sa.Column("first_responded_at", when, nullable=True),
        sa.Column("first_response_minutes", sa.Integer(), nullable=True),
        sa.Column("first_response_breached_at", when, nullable=True),
        sa.Column("resolution_due_at", when, nullable=True),
        sa.Column("resolved_at", when, nullable=True),
        sa.Column("resolution_minutes", sa.Integer(), nullable=True),
        sa.Column("resolution_breached_at", when, nullable=True),
        sa.Column("paused_since", when, nullable=True),
        sa.Column("resolution_minutes_run", sa.Integer(), server_default="0", nullable=False),
        sa.Column("resolution_running_since", when, nullable=True),
        sa.ForeignKeyConstraint(
            ["claim_id"], ["claims.id"], name=op.f("fk_claim_deadlines_claim_id_claims"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_claim_deadlines_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("claim_id", name=op.f("pk_claim_deadlines")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "ix_claim_deadlines_organization_next_due",
        "claim_deadlines",
        ["organization_id", "next_due_at", "claim_id"],
    )
    _claims_routed_before()
    op.create_index(
        "ix_claim_deadlines_first_response_open",
        "claim_deadlines",
        ["first_response_due_at"],
        sqlite_where=sa.text(_FIRST_RESPONSE_OPEN),
        postgresql_where=sa.text(_FIRST_RESPONSE_OPEN),
    )
    op.create_index(
        "ix_claim_deadlines_resolution_open",
        "claim_deadlines",
        ["resolution_due_at"],
        sqlite_where=sa.text(_RESOLUTION_OPEN),
        postgresql_where=sa.text(_RESOLUTION_OPEN),
    )


def _claims_routed_before() -> None:
    """Claims routed before deadlines existed get a row without due times: no open deadline (last under
    `sort=due`), nothing to breach."""
    op.execute(
        sa.text(
            "INSERT INTO claim_deadlines (claim_id, started_at, organization_id, next_due_at, "
            "resolution_minutes_run) SELECT id, created_at, organization_id, :never, 0 FROM claims "
            "WHERE organization_id IS NOT NULL"
        ).bindparams(sa.bindparam("never", NO_DEADLINE, type_=app.core.types.UtcDateTime(timezone=True)))
    )


def downgrade() -> None:
    op.drop_index("ix_claim_deadlines_resolution_open", table_name="claim_deadlines")
    op.drop_index("ix_claim_deadlines_first_response_open", table_name="claim_deadlines")
    op.drop_index("ix_claim_deadlines_organization_next_due", table_name="claim_deadlines")
    op.drop_table("claim_deadlines")
    with op.batch_alter_table("organizations") as batch_op:
        batch_op.drop_column("business_hours")
        batch_op.drop_column("resolution_minutes")
        batch_op.drop_column("first_response_minutes")
