"""The claims routes' own request dependencies: the repository and the list's filter (the claim a path
names is `VisibleClaimById`, app.api.dependencies). Only route modules import it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query

from app.api.dependencies import repository
from app.claims.repository import ClaimFilter, ClaimRepository
from app.core.ids import DIGITS_ONLY, MAX_ID
from app.models.enums import ClaimStatusName

ClaimRepo = Annotated[ClaimRepository, Depends(repository(ClaimRepository))]


async def claim_filter(
    status: Annotated[ClaimStatusName | None, Query(description="Only claims in this status.")] = None,
    product_id: Annotated[int | None, Query(alias="productId", ge=1, le=MAX_ID), DIGITS_ONLY] = None,
) -> ClaimFilter:
    return ClaimFilter(status=status, product_id=product_id)


ClaimQuery = Annotated[ClaimFilter, Depends(claim_filter)]
