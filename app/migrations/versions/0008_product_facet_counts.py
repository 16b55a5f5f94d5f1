"""Exact totals of the product filters without counting: a count per brand and per category, and per
expiry day.

- `row_counts.name` becomes text: a brand or a category is up to 100 characters
  (`products:brand:<lower(brand)>`, `products:category:<lower(category)>`, 4 slots each).
- `product_expiry_counts`: products per warranty expiry day (4 slots); a warranty status is a range of
  days relative to today, so its total is a sum over that range.

Both kept by triggers on products in the writing transaction (app.derived.count_triggers), filled here.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24 14:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.derived.count_triggers import (
    create_count_triggers,
    create_facet_triggers,
    drop_count_triggers,
    drop_facet_triggers,
    fill_facet_counts,
)


def _alter_name(old: sa.types.TypeEngine[str], new: sa.types.TypeEngine[str]) -> None:
    # SQLite rebuilds the table, which it refuses while triggers name it: they are put back after.
    drop_count_triggers(op.get_bind())
    with op.batch_alter_table("row_counts") as batch_op:
        batch_op.alter_column("name", existing_type=old, type_=new)
    create_count_triggers(op.get_bind())


revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    _alter_name(sa.String(length=64), sa.Text())
    op.create_table(
        "product_expiry_counts",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("n", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("day", "slot", name=op.f("pk_product_expiry_counts")),
    )
    fill_facet_counts(op.get_bind())
    create_facet_triggers(op.get_bind())


def downgrade() -> None:
    drop_facet_triggers(op.get_bind())
    op.drop_table("product_expiry_counts")
    op.execute("DELETE FROM row_counts WHERE name LIKE 'products:brand:%' OR name LIKE 'products:category:%'")
    _alter_name(sa.Text(), sa.String(length=64))
