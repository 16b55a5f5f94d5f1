"""A claim's outcome (docs/api.md §6.2): how it was resolved, a note, and for a repaired or replaced item the
warranty extension it leaves on the product. Recorded when the claim is resolved; a reopen removes all
three, and the product's expiry goes back."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.clock import utc_today
from app.models import Claim
from app.models.enums import ClaimStatus
from app.products import extensions


@dataclass(frozen=True)
class Resolution:
    """What a status change says about the outcome (all None: nothing), checked by its schema."""

    outcome: str | None = None
    note: str | None = None
    new_warranty_months: int | None = None


NONE = Resolution()


async def settle(session: AsyncSession, claim: Claim, target: ClaimStatus, resolution: Resolution) -> None:
    """Apply the outcome side of the claim's move from its current status to `target` (checked)."""
    if target == ClaimStatus.RESOLVED:
        claim.outcome, claim.outcome_note = resolution.outcome, resolution.note
        if resolution.new_warranty_months is not None:
            await extensions.extend(session, claim, resolution.new_warranty_months, utc_today())
    elif (
        claim.status == ClaimStatus.RESOLVED and target == ClaimStatus.IN_PROGRESS
    ):  # reopened: the resolution is undone
        claim.outcome = claim.outcome_note = None
        await extensions.withdraw(session, claim)
