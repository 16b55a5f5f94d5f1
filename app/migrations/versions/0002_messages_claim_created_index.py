"""Index a claim's messages in the order they are listed (created_at, id).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23 13:10:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("messages") as batch_op:
        batch_op.create_index("ix_messages_claim_created_id", ["claim_id", "created_at", "id"], unique=False)
        batch_op.drop_index("ix_messages_claim_id_id")


def downgrade() -> None:
    with op.batch_alter_table("messages") as batch_op:
        batch_op.create_index("ix_messages_claim_id_id", ["claim_id", "id"], unique=False)
        batch_op.drop_index("ix_messages_claim_created_id")
