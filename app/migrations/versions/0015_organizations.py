"""organizations: supplier organisations, their brands and members, and a claim's organisation
(contract 17.5 to 17.7).

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28 12:00:00
"""

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import sqlalchemy as sa
from alembic import op
from alembic.operations import BatchOperations

import app.core.types
from app.derived.count_triggers import create_count_triggers, drop_count_triggers

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_IN_QUEUE = sa.text("organization_id IS NOT NULL")


@contextmanager
def _claims_rebuilt() -> Iterator[BatchOperations]:
    """A batch on claims. SQLite rebuilds the table for a foreign key, which it refuses while triggers
    name it: the count triggers come back after. (The rebuild keeps every row: migrations run with
    foreign keys off, app.migrations.env.)"""
    bind = op.get_bind()
    sqlite = bind.dialect.name == "sqlite"
    if sqlite:
        drop_count_triggers(bind)
    with warnings.catch_warnings():  # products is reflected for the claims' foreign key
        warnings.filterwarnings("ignore", "Skipped unsupported reflection of expression-based index")
        with op.batch_alter_table("claims") as batch_op:
            yield batch_op
    if sqlite:
        create_count_triggers(bind)


def upgrade() -> None:
    _organizations()
    _claims_organization()


def _organizations() -> None:
    """Organisations, their brands and their members."""
    op.create_table(
        "organizations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("email", sa.String(length=255), nullable=True),
        sa.Column("updated_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.Column("created_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_organizations")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "organization_brands",
        sa.Column("key", sa.String(length=100), nullable=False),
        sa.Column("organization_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_organization_brands_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_organization_brands")),
    )
    op.create_index(
        op.f("ix_organization_brands_organization_id"), "organization_brands", ["organization_id"]
    )
    op.create_table(
        "organization_members",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("organization_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("joined_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_organization_members_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_organization_members_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_organization_members")),
    )
    op.create_index(
        "ix_organization_members_organization_user", "organization_members", ["organization_id", "user_id"]
    )


def _claims_organization() -> None:
    """The organisation a claim is routed to, and the queue's indexes."""
    with _claims_rebuilt() as batch_op:
        batch_op.add_column(sa.Column("organization_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            op.f("fk_claims_organization_id_organizations"),
            "organizations",
            ["organization_id"],
            ["id"],
            ondelete="SET NULL",
        )
    op.create_index(
        "ix_claims_organization_created_id",
        "claims",
        ["organization_id", "created_at", "id"],
        sqlite_where=_IN_QUEUE,
        postgresql_where=_IN_QUEUE,
    )
    op.create_index(
        "ix_claims_organization_status_created_id",
        "claims",
        ["organization_id", "status", "created_at", "id"],
        sqlite_where=_IN_QUEUE,
        postgresql_where=_IN_QUEUE,
    )


def downgrade() -> None:
    op.drop_index("ix_claims_organization_status_created_id", table_name="claims")
    op.drop_index("ix_claims_organization_created_id", table_name="claims")
    with _claims_rebuilt() as batch_op:
        batch_op.drop_constraint("fk_claims_organization_id_organizations", type_="foreignkey")
        batch_op.drop_column("organization_id")
    op.drop_index("ix_organization_members_organization_user", table_name="organization_members")
    op.drop_table("organization_members")
    op.drop_index(op.f("ix_organization_brands_organization_id"), table_name="organization_brands")
    op.drop_table("organization_brands")
    op.drop_table("organizations")
