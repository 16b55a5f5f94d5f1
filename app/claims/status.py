"""The claim lifecycle's statuses (who may move a claim between them: app.claims.transitions)."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal


class ClaimStatus(StrEnum):
    OPEN = "open"
    IN_PROGRESS = "in_progress"
    RESOLVED = "resolved"
    CLOSED = "closed"  # the one status a product's active claim cannot have


# The same names as request and response fields take them: a Literal keeps the OpenAPI schema and the
# validation errors the API has always had (tests/claims/test_status.py holds the two equal).
ClaimStatusName = Literal["open", "in_progress", "resolved", "closed"]
