"""Exact totals of the unfiltered admin lists (and of the product list filtered by one brand, category or
warranty status), read from the row counts the database keeps (`row_counts`, `product_expiry_counts`,
maintained by triggers in each writing transaction): a few rows summed instead of a table counted."""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import String, bindparam, cast, func, literal, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.driver_reads import DriverRead
from app.models import Claim, ProductExpiryCount, RowCount

# Read by every paged list: on the driver's connection (app.core.driver_reads).
_SUM: DriverRead[Any] = DriverRead(
    select(func.coalesce(func.sum(RowCount.n), 0)).where(RowCount.name == bindparam("name"))
)
_EXPIRING = select(func.coalesce(func.sum(ProductExpiryCount.n), 0)).where(
    ProductExpiryCount.day.between(bindparam("first"), bindparam("last"))
)


def claim_messages(claim_id: int) -> str:
    """The name of one claim's message count."""
    return f"claim:{claim_id}:messages"


def message_count_of_claim() -> Any:
    """Each claim's message count, as a subquery correlated to the claims of the enclosing statement."""
    name = literal("claim:") + cast(Claim.id, String) + literal(":messages")
    return (
        select(func.coalesce(func.sum(RowCount.n), 0))
        .where(RowCount.name == name)
        .correlate(Claim)
        .scalar_subquery()
    )


async def row_count(session: AsyncSession, name: str) -> int:
    """How many rows `name` counts: `products`, `products:brand:<lower(brand)>`,
    `products:category:<lower(category)>`, `claims`, `claims:<status>`, `messages`, `messages:unread`,
    `claim:<id>:messages`."""
    return int(await _SUM.scalar(session, name=name) or 0)


async def products_expiring(session: AsyncSession, first: date | None, last: date | None) -> int:
    """How many products' warranty ends between `first` and `last` (both included; None: no bound)."""
    bounds = {"first": first or date.min, "last": last or date.max}
    return int(await session.scalar(_EXPIRING, bounds) or 0)
