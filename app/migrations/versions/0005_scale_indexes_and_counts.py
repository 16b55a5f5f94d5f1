"""Scale: indexes in the order of each list, a recipient's first read kept on the message, exact row counts.

- Indexes for the admin lists' orders and filters (products, claims, messages, users), so a page reads
  its rows down an index instead of sorting a table.
- `messages.recipient_read_at`: when a recipient first read the message (filled from the read rows).
- `row_counts`: exact counts of products, claims (and per status), messages (and unread ones), and each
  claim's messages (`claim:<id>:messages`, 4 slots), kept by triggers in the writing transaction,
  cascaded deletes included, and filled from the tables here.

The triggers live in app.derived.count_triggers: a SQLite table rebuilt by a later migration (batch mode)
loses its triggers, so the migration environment creates them again after every run.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24 11:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import app.core.types
from app.derived.count_triggers import CLAIM_SLOTS, SLOTS, create_count_triggers, drop_count_triggers

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _fill_counts() -> None:
    """The counts of the rows already there."""
    counted = {
        "'products'": "products",
        "'claims'": "claims",
        "'claims:' || status": "claims",
        "'messages'": "messages",
        "'messages:unread'": "messages WHERE recipient_read_at IS NULL",
    }
    op.execute("DELETE FROM row_counts")
    op.execute(
        "INSERT INTO row_counts (name, slot, n)"
        # '\\:' is a colon, not a bound parameter.
        f" SELECT 'claim:' || claim_id || '\\:messages', id % {CLAIM_SLOTS}, count(*)"
        " FROM messages GROUP BY 1, 2"
    )
    for name, source in counted.items():
        op.execute(
            f"INSERT INTO row_counts (name, slot, n) SELECT {name}, id % {SLOTS}, count(*) FROM {source}"
            " GROUP BY 1, 2"
        )


def upgrade() -> None:
    op.create_table(
        "row_counts",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("n", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", "slot", name=op.f("pk_row_counts")),
    )
    with op.batch_alter_table("messages") as batch_op:
        batch_op.add_column(
            sa.Column("recipient_read_at", app.core.types.UtcDateTime(timezone=True), nullable=True)
        )
    # A recipient: the claim's customer or supplier, other than the sender.
    op.execute(
        """
        UPDATE messages SET recipient_read_at = (
          SELECT min(r.read_at) FROM message_reads AS r JOIN claims AS c ON c.id = messages.claim_id
          WHERE r.message_id = messages.id
            AND (r.user_id = c.customer_id OR r.user_id = c.supplier_id)
            AND (messages.sender_id IS NULL OR r.user_id <> messages.sender_id))
        WHERE EXISTS (SELECT 1 FROM message_reads AS r WHERE r.message_id = messages.id)
        """
    )
    with op.batch_alter_table("messages") as batch_op:
        batch_op.create_index("ix_messages_created_id", ["created_at", "id"], unique=False)
        batch_op.create_index(
            "ix_messages_sender_created_id", ["sender_id", "created_at", "id"], unique=False
        )
        batch_op.create_index(
            "ix_messages_claim_unread_created_id",
            ["claim_id", "created_at", "id"],
            unique=False,
            sqlite_where=sa.text("recipient_read_at IS NULL"),
            postgresql_where=sa.text("recipient_read_at IS NULL"),
        )
        batch_op.create_index(
            "ix_messages_unread_created_id",
            ["created_at", "id"],
            unique=False,
            sqlite_where=sa.text("recipient_read_at IS NULL"),
            postgresql_where=sa.text("recipient_read_at IS NULL"),
        )
        batch_op.drop_index("ix_messages_sender_id")
    with op.batch_alter_table("claims") as batch_op:
        batch_op.create_index("ix_claims_created_id", ["created_at", "id"], unique=False)
        batch_op.create_index("ix_claims_status_created_id", ["status", "created_at", "id"], unique=False)
    with op.batch_alter_table("products") as batch_op:
        batch_op.create_index("ix_products_created_id", ["created_at", "id"], unique=False)
        batch_op.create_index("ix_products_name_id", [sa.text("lower(name)"), "id"], unique=False)
        for column in ("brand", "category"):
            batch_op.create_index(
                f"ix_products_{column}_created_id",
                [sa.text(f"lower({column})"), "created_at", "id"],
                unique=False,
            )
    with op.batch_alter_table("users") as batch_op:
        batch_op.create_index("ix_users_created_id", ["created_at", "id"], unique=False)
    _fill_counts()
    create_count_triggers(op.get_bind())


def downgrade() -> None:
    drop_count_triggers(op.get_bind())
    with op.batch_alter_table("users") as batch_op:
        batch_op.drop_index("ix_users_created_id")
    with op.batch_alter_table("products") as batch_op:
        batch_op.drop_index("ix_products_category_created_id")
        batch_op.drop_index("ix_products_brand_created_id")
        batch_op.drop_index("ix_products_name_id")
        batch_op.drop_index("ix_products_created_id")
    with op.batch_alter_table("claims") as batch_op:
        batch_op.drop_index("ix_claims_status_created_id")
        batch_op.drop_index("ix_claims_created_id")
    with op.batch_alter_table("messages") as batch_op:
        batch_op.create_index("ix_messages_sender_id", ["sender_id"], unique=False)
        batch_op.drop_index("ix_messages_unread_created_id")
        batch_op.drop_index("ix_messages_claim_unread_created_id")
        batch_op.drop_index("ix_messages_sender_created_id")
        batch_op.drop_index("ix_messages_created_id")
        batch_op.drop_column("recipient_read_at")
    op.drop_table("row_counts")
