"""queue_text_search: a claim's search text, the queue's text filter (contract 17.7).

The filter matched the description and the product's name through a join to products, so counting an
organisation's matches read a product per claim. Each claim now keeps both, lower-cased, in its own row
(app/derived/claim_search.py).

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-28 15:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A column added in place (SQLite's ADD COLUMN: no rebuild, the count triggers stay), then filled.
    op.add_column("claims", sa.Column("search_text", sa.Text(), server_default="", nullable=False))
    op.execute(
        sa.text(
            "UPDATE claims SET search_text = lower("
            "(SELECT products.name FROM products WHERE products.id = claims.product_id)"
            " || :separator || description)"
        ).bindparams(separator="\n")
    )


def downgrade() -> None:
    # In place on both (SQLite 3.35 and newer drop a column no index or trigger names).
    op.drop_column("claims", "search_text")
