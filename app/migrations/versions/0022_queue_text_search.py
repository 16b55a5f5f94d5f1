"""queue_text_search: the queue's text filter (contract 17.7).

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-28 15:00:00
"""

from collections.abc import Sequence

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
