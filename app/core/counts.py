"""Exact totals of the unfiltered admin lists, read from the row counts the database keeps (`row_counts`,
maintained by triggers in each writing transaction): a few rows summed instead of a table counted."""

from __future__ import annotations

from sqlalchemy import bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import RowCount

_SUM = select(func.coalesce(func.sum(RowCount.n), 0)).where(RowCount.name == bindparam("name"))


async def row_count(session: AsyncSession, name: str) -> int:
    """How many rows `name` counts: `products`, `claims`, `claims:<status>`, `messages`,
    `messages:unread`."""
    return int(await session.scalar(_SUM, {"name": name}) or 0)
