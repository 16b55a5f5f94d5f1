"""One lock order for the kept counts (PostgreSQL).

The count triggers (app.derived.count_triggers) add to a few counter rows per inserted product, product after
product. A transaction that inserts many products (an import) thus locks many counter rows in the order of
its own rows, and two of them at once, meeting shared rows (the `products` slots, a brand, a day) in
different orders, deadlock. Such a transaction first takes every counter row it may add to, in one order
(sorted keys, `row_counts` before `product_expiry_counts`, as a single insert's triggers take them): the
second one then waits for the first instead. Other writers are not held up beyond those rows. SQLite
serializes writers and needs none of this.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any

from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.derived.count_triggers import FACET_SLOTS, SLOTS
from app.models import ProductExpiryCount, RowCount

KEYS_PER_STATEMENT = 1000  # 3 bound parameters each: well within the driver's limit


async def take_product_counters(session: AsyncSession, products: Iterable[tuple[str, str, date]]) -> None:
    """Lock (creating them at 0 if missing) every counter row that inserting products of these (brand,
    category, expiry day) can add to, whatever ids they get."""
    if session.get_bind().dialect.name != "postgresql":
        return
    names, days = {("products", slot) for slot in range(SLOTS)}, set()
    for brand, category, day in products:
        for slot in range(FACET_SLOTS):
            names |= {
                (f"products:brand:{brand.lower()}", slot),
                (f"products:category:{category.lower()}", slot),
            }
            days.add((day, slot))
    await _take(session, RowCount, [{"name": name, "slot": slot, "n": 0} for name, slot in sorted(names)])
    await _take(
        session, ProductExpiryCount, [{"day": day, "slot": slot, "n": 0} for day, slot in sorted(days)]
    )


async def _take(session: AsyncSession, model: Any, keys: Sequence[dict[str, Any]]) -> None:
    """Upsert the rows in the order given (PostgreSQL takes a multi-row VALUES in order), adding nothing:
    the update locks an existing row, the insert a new one."""
    for start in range(0, len(keys), KEYS_PER_STATEMENT):
        statement = insert(model).values(list(keys[start : start + KEYS_PER_STATEMENT]))
        await session.execute(
            statement.on_conflict_do_update(
                index_elements=list(model.__table__.primary_key.columns), set_={"n": model.n}
            )
        )
