"""ratings: satisfaction ratings (contract 17.11).

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28 15:00:00
"""

from collections.abc import Sequence

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
