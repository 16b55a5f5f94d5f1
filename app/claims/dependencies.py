"""The claims routes' own request dependencies: the repositories, the list's and the queue's filters (the
claim a path names is `VisibleClaimById`, app.api.dependencies). Only route modules import it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query

from app.api.dependencies import repository
from app.claims.queue import Assigned, ClaimQueue, QueueFilter, check_sort
from app.claims.repository import ClaimFilter, ClaimRepository
from app.core.ids import DIGITS_ONLY, MAX_ID
from app.models.enums import ClaimStatusName

ClaimRepo = Annotated[ClaimRepository, Depends(repository(ClaimRepository))]
QueueRepo = Annotated[ClaimQueue, Depends(repository(ClaimQueue))]


async def claim_filter(
    status: Annotated[ClaimStatusName | None, Query(description="Only claims in this status.")] = None,
    product_id: Annotated[int | None, Query(alias="productId", ge=1, le=MAX_ID), DIGITS_ONLY] = None,
) -> ClaimFilter:
    return ClaimFilter(status=status, product_id=product_id)


ClaimQuery = Annotated[ClaimFilter, Depends(claim_filter)]


async def queue_filter(
    status: Annotated[ClaimStatusName | None, Query(description="Only claims in this status.")] = None,
    assigned: Annotated[
        Assigned, Query(description="me: the caller's; none: nobody's yet; any (default): all.")
    ] = "any",
    agent_id: Annotated[
        int | None,
        Query(alias="agentId", ge=1, le=MAX_ID, description="Only this agent's claims."),
        DIGITS_ONLY,
    ] = None,
    brand: Annotated[str | None, Query(max_length=100, description="Exactly this brand, any case.")] = None,
    q: Annotated[
        str | None, Query(max_length=255, description="Part of the description or product name, any case.")
    ] = None,
) -> QueueFilter:
    def clean(value: str | None) -> str | None:
        return (value or "").strip() or None  # blank means no filter

    return QueueFilter(status=status, assigned=assigned, agent_id=agent_id, brand=clean(brand), q=clean(q))


async def queue_sort(
    sort: Annotated[
        str | None,
        Query(description="created (default): oldest first; due: soonest open deadline first, none last."),
    ] = None,
) -> str:
    return check_sort(sort)


QueueQuery = Annotated[QueueFilter, Depends(queue_filter)]
QueueSort = Annotated[str, Depends(queue_sort)]
