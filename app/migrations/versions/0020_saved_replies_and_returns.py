"""saved_replies_and_returns: saved replies and return authorisations (contract 17.9, 17.10).

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-28 15:00:00
"""

from collections.abc import Sequence

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
