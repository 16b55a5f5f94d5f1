"""Exact totals of the unfiltered admin lists, read from the row counts the database keeps (`row_counts`,
maintained by triggers in each writing transaction): a few rows summed instead of a table counted."""

from __future__ import annotations

from typing import Any

from sqlalchemy import String, bindparam, cast, func, literal, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Claim, RowCount

_SUM = select(func.coalesce(func.sum(RowCount.n), 0)).where(RowCount.name == bindparam("name"))


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
    """How many rows `name` counts: `products`, `claims`, `claims:<status>`, `messages`,
    `messages:unread`, `claim:<id>:messages`."""
    return int(await session.scalar(_SUM, {"name": name}) or 0)
