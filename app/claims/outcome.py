"""A claim's outcome (contract 15.5): how it was resolved, a note, and for a repaired or replaced item the
warranty extension it leaves on the product. Recorded when the claim is resolved; a reopen removes all
three, and the product's expiry goes back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.clock import utc_today
from app.errors import ValidationFailed
from app.models import Claim
from app.products import extensions

EXTENDING = ("repaired", "replaced")  # the outcomes that may give the item a new warranty


@dataclass(frozen=True)
class Resolution:
    """What a status change says about the outcome (all None: nothing)."""

    outcome: str | None = None
    note: str | None = None
    new_warranty_months: int | None = None

    def check(self, target: str) -> None:
        """400 VALIDATION_FAILED for outcome fields that do not go with the move or with each other."""
        sent = {
            name: value
            for name, value in (
                ("outcome", self.outcome),
                ("outcomeNote", self.note),
                ("newWarrantyMonths", self.new_warranty_months),
            )
            if value is not None
        }
        if sent and target != "resolved":
            raise ValidationFailed.field(next(iter(sent)), "may only be given with status resolved")
        if self.outcome is None and sent:
            raise ValidationFailed.field(next(iter(sent)), "may only be given with an outcome")
        if self.new_warranty_months is not None and self.outcome not in EXTENDING:
            raise ValidationFailed.field(
                "newWarrantyMonths", "may only be given with outcome repaired or replaced"
            )


NONE = Resolution()


async def settle(session: AsyncSession, claim: Claim, target: str, resolution: Resolution) -> None:
    """Apply the outcome side of the claim's move from its current status to `target` (checked)."""
    if target == "resolved":
        claim.outcome, claim.outcome_note = resolution.outcome, resolution.note
        if resolution.new_warranty_months is not None:
            await extensions.extend(session, claim, resolution.new_warranty_months, utc_today())
    elif claim.status == "resolved" and target == "in_progress":  # reopened: the resolution is undone
        claim.outcome = claim.outcome_note = None
        await extensions.withdraw(session, claim)


async def described(session: AsyncSession, claim: Claim) -> dict[str, Any]:
    """The outcome as webhooks and the timeline carry it: `outcome`, `outcomeNote`, `warrantyExtension`."""
    extension = await extensions.of_claim(session, claim.id)
    return {
        "outcome": claim.outcome,
        "outcomeNote": claim.outcome_note,
        "warrantyExtension": None
        if extension is None
        else {
            "months": extension.months,
            "startsOn": extension.starts_on.isoformat(),
            "endsOn": extension.ends_on.isoformat(),
        },
    }
