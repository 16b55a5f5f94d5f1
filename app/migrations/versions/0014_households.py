"""households: households, their members and invitations, a product's household, per-user claim mutes
(contract 17.1 to 17.4).

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28 11:33:19
"""

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import sqlalchemy as sa
from alembic import op
from alembic.operations import BatchOperations

import app.core.types
from app.derived.count_triggers import (
    create_count_triggers,
    create_facet_triggers,
    drop_count_triggers,
    drop_facet_triggers,
)

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The products expression indexes, which SQLite's table rebuild cannot reflect.
_EXPRESSION_INDEXES = {
    "ix_products_name_id": ["lower(name)", "id"],
    "ix_products_brand_created_id": ["lower(brand)", "created_at", "id"],
    "ix_products_category_created_id": ["lower(category)", "created_at", "id"],
}


@contextmanager
def _products_rebuilt() -> Iterator[BatchOperations]:
    """A batch on products. SQLite rebuilds the table for a foreign key, which it refuses while triggers
    name it: they come back after, with the expression indexes the rebuild cannot reflect."""
    bind = op.get_bind()
    sqlite = bind.dialect.name == "sqlite"
    if sqlite:
        drop_count_triggers(bind)
        drop_facet_triggers(bind)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Skipped unsupported reflection of expression-based index")
        with op.batch_alter_table("products") as batch_op:
            yield batch_op
    if sqlite:
        for name, columns in _EXPRESSION_INDEXES.items():
            op.execute(f"CREATE INDEX IF NOT EXISTS {name} ON products ({', '.join(columns)})")
        create_count_triggers(bind)
        create_facet_triggers(bind)


def upgrade() -> None:
    _households()
    _claim_mutes_and_sharing()


def _households() -> None:
    """Households, their invitations and their members."""
    op.create_table(
        "households",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("updated_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.Column("created_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_households")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "household_invitations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("household_id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=255), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("invited_by", sa.Integer(), nullable=True),
        sa.Column("expires_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.Column("created_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["household_id"],
            ["households.id"],
            name=op.f("fk_household_invitations_household_id_households"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["invited_by"],
            ["users.id"],
            name=op.f("fk_household_invitations_invited_by_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_household_invitations")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_household_invitations_token_hash")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_household_invitations_household_id"), "household_invitations", ["household_id"])
    op.create_table(
        "household_members",
        sa.Column("household_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("joined_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["household_id"],
            ["households.id"],
            name=op.f("fk_household_members_household_id_households"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_household_members_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("household_id", "user_id", name=op.f("pk_household_members")),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_household_members_user_household", "household_members", ["user_id", "household_id"])


def _claim_mutes_and_sharing() -> None:
    """Per-user claim mutes, and the household a product is shared with."""
    op.create_table(
        "claim_mutes",
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("muted", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["claim_id"], ["claims.id"], name=op.f("fk_claim_mutes_claim_id_claims"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_claim_mutes_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("claim_id", "user_id", name=op.f("pk_claim_mutes")),
        sqlite_autoincrement=True,
    )
    with _products_rebuilt() as batch_op:
        batch_op.add_column(sa.Column("household_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            op.f("fk_products_household_id_households"),
            "households",
            ["household_id"],
            ["id"],
            ondelete="SET NULL",
        )
    op.create_index(
        "ix_products_household_created_id",
        "products",
        ["household_id", "created_at", "id"],
        sqlite_where=sa.text("household_id IS NOT NULL"),
        postgresql_where=sa.text("household_id IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_products_household_created_id", table_name="products")
    with _products_rebuilt() as batch_op:
        batch_op.drop_constraint("fk_products_household_id_households", type_="foreignkey")
        batch_op.drop_column("household_id")
    op.drop_table("claim_mutes")
    op.drop_index("ix_household_members_user_household", table_name="household_members")
    op.drop_table("household_members")
    op.drop_index(op.f("ix_household_invitations_household_id"), table_name="household_invitations")
    op.drop_table("household_invitations")
    op.drop_table("households")
