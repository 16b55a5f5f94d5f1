"""A product's effective expiry: the later of its own warranty's end and every warranty extension's end
(docs/api.md §5.2, §6.2). Stored in `products.warranty_expires_on` and set again by every write that moves
one of them, so the lists filter and sort on one indexed column and expiry alerts follow it."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Product, WarrantyExtension
from app.products.warranty import own_end


async def lock(session: AsyncSession, product: Product) -> None:
    """Read the product again under a row lock (PostgreSQL; SQLite serializes writers anyway), so that an
    edit of its dates and a claim's extension, made at once, each see the other's result."""
    await session.refresh(product, with_for_update=True)


async def keep_in_step(session: AsyncSession, product: Product) -> None:
    """Set the stored expiry from the product's own end and its extensions (the product locked by the
    caller)."""
    expiry = own_end(product.purchase_date, product.warranty_period_months, product.warranty_ends_on)
    latest = select(func.max(WarrantyExtension.ends_on)).where(WarrantyExtension.product_id == product.id)
    extended = await session.scalar(latest)
    product.warranty_expires_on = max(expiry, extended) if extended is not None else expiry
