"""mercure_updates: published Mercure updates (contract 20).

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-28 15:00:00
"""

from collections.abc import Sequence

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
