"""Warranties that do not follow the formula, voided warranties, and claim outcomes with the warranty
extensions they leave (docs/api.md §5.2, §5.3, §6.2).

- `products.warranty_period_months` may be null: `warranty_ends_on` gives the end directly instead.
- `products.warranty_voided_at` / `warranty_void_reason`, and a partial index for the `void` filter. The
  product facet triggers (migration 0008) count a voided warranty in `products:void` instead of on its
  expiry day (no warranty is voided yet: the counts stay as they are).
- `claims.outcome` / `outcome_note`.
- `warranty_extensions`: one per resolved claim, by product and end day (the effective expiry is the
  later of the product's own end and its extensions' ends, kept in `products.warranty_expires_on`).

On SQLite the products table is rebuilt (a column becomes nullable), and a rebuild from reflection drops
indexes on expressions; they are created again here.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-24 14:00:00
"""

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import sqlalchemy as sa
from alembic import op
from alembic.operations import BatchOperations

import app.core.types
from app.derived.count_triggers import FACET_SLOTS, create_facet_triggers, drop_facet_triggers

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The products indexes on lower(...) as migration 0005 created them: a SQLite rebuild loses them.
_EXPRESSION_INDEXES = {
    "ix_products_name_id": ["lower(name)", "id"],
    "ix_products_brand_created_id": ["lower(brand)", "created_at", "id"],
    "ix_products_category_created_id": ["lower(category)", "created_at", "id"],
}


@contextmanager
def _batch(table: str) -> Iterator[BatchOperations]:
    """A batch that may rebuild the table (SQLite), reflecting products on the way (its own, or as the
    table a foreign key refers to); the products expression indexes come back after."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Skipped unsupported reflection of expression-based index")
        with op.batch_alter_table(table) as batch_op:
            yield batch_op
    if op.get_bind().dialect.name == "sqlite" and table == "products":
        for name, columns in _EXPRESSION_INDEXES.items():
            op.execute(f"CREATE INDEX IF NOT EXISTS {name} ON products ({', '.join(columns)})")


def upgrade() -> None:
    with _batch("products") as batch_op:
        batch_op.alter_column("warranty_period_months", existing_type=sa.Integer(), nullable=True)
        batch_op.add_column(sa.Column("warranty_ends_on", sa.Date(), nullable=True))
        batch_op.add_column(
            sa.Column("warranty_voided_at", app.core.types.UtcDateTime(timezone=True), nullable=True)
        )
        batch_op.add_column(sa.Column("warranty_void_reason", sa.String(length=500), nullable=True))
        batch_op.create_index(
            "ix_products_voided_created_id",
            ["created_at", "id"],
            unique=False,
            sqlite_where=sa.text("warranty_voided_at IS NOT NULL"),
            postgresql_where=sa.text("warranty_voided_at IS NOT NULL"),
        )
    create_facet_triggers(op.get_bind())
    with _batch("claims") as batch_op:
        batch_op.add_column(sa.Column("outcome", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("outcome_note", sa.Text(), nullable=True))
    op.create_table(
        "warranty_extensions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("product_id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("months", sa.Integer(), nullable=False),
        sa.Column("starts_on", sa.Date(), nullable=False),
        sa.Column("ends_on", sa.Date(), nullable=False),
        sa.Column("created_at", app.core.types.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["claim_id"],
            ["claims.id"],
            name=op.f("fk_warranty_extensions_claim_id_claims"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["product_id"],
            ["products.id"],
            name=op.f("fk_warranty_extensions_product_id_products"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_warranty_extensions")),
        sa.UniqueConstraint("claim_id", name=op.f("uq_warranty_extensions_claim_id")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "ix_warranty_extensions_product_ends", "warranty_extensions", ["product_id", "ends_on"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_warranty_extensions_product_ends", table_name="warranty_extensions")
    op.drop_table("warranty_extensions")
    with _batch("claims") as batch_op:
        batch_op.drop_column("outcome_note")
        batch_op.drop_column("outcome")
    # An older version knows only months: a product with an end day gets 0 (its stored expiry stays until
    # its next edit). Voided warranties count on their expiry days again.
    op.execute("UPDATE products SET warranty_period_months = 0 WHERE warranty_period_months IS NULL")
    drop_facet_triggers(op.get_bind())
    op.execute(
        "INSERT INTO product_expiry_counts (day, slot, n)"
        f" SELECT warranty_expires_on, id % {FACET_SLOTS}, count(*) FROM products"
        " WHERE warranty_voided_at IS NOT NULL GROUP BY 1, 2"
        " ON CONFLICT (day, slot) DO UPDATE SET n = product_expiry_counts.n + excluded.n"
    )
    op.execute("DELETE FROM row_counts WHERE name = 'products:void'")
    with _batch("products") as batch_op:
        batch_op.drop_index("ix_products_voided_created_id")
        batch_op.drop_column("warranty_void_reason")
        batch_op.drop_column("warranty_voided_at")
        batch_op.drop_column("warranty_ends_on")
        batch_op.alter_column("warranty_period_months", existing_type=sa.Integer(), nullable=False)
    create_facet_triggers(op.get_bind())
