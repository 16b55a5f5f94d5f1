"""Warranty extensions (docs/api.md §6.2): the warranty a repaired or replaced item gets when its claim is
resolved, starting on the resolution day. Added and withdrawn with the claim's outcome; each one moves the
product's effective expiry (app.products.expiry), which the lists, the facet counts, the calendar feed and
the expiry alerts all read."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any

from sqlalchemy import bindparam, delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.driver_reads import DriverRead
from app.models import Claim, Product, WarrantyExtension
from app.products import expiry
from app.products.warranty import expiry_date

# Product ids per query when loading a list's extensions: one query for any page (at most 100) and for
# all but the largest unpaged lists, well within every driver's limit on bound parameters.
IDS_PER_QUERY = 10_000


async def extend(session: AsyncSession, claim: Claim, months: int, starts_on: date) -> None:
    """Give the claim's product `months` of warranty from `starts_on`, and move the product's expiry to
    the later of its ends. The product is locked first, as an edit of its dates locks it."""
    product = await _locked_product(session, claim.product_id)
    ends_on = expiry_date(starts_on, months)
    session.add(
        WarrantyExtension(
            product_id=product.id, claim_id=claim.id, months=months, starts_on=starts_on, ends_on=ends_on
        )
    )
    await session.flush()
    await _keep_expiry(session, product)


async def withdraw(session: AsyncSession, claim: Claim) -> None:
    """Remove the extension the claim left, if any: the product's expiry goes back to what remains."""
    if await of_claim(session, claim.id) is None:
        return
    product = await _locked_product(session, claim.product_id)
    await session.execute(delete(WarrantyExtension).where(WarrantyExtension.claim_id == claim.id))
    await _keep_expiry(session, product)


async def _locked_product(session: AsyncSession, product_id: int) -> Product:
    product = await session.get_one(Product, product_id)
    await expiry.lock(session, product)
    return product


async def _keep_expiry(session: AsyncSession, product: Product) -> None:
    await expiry.keep_in_step(session, product)
    await session.flush()


# Read by every claim detail: on the driver's connection (app.core.driver_reads).
_OF_CLAIM = DriverRead(
    select(WarrantyExtension).where(WarrantyExtension.claim_id == bindparam("claim_id")), WarrantyExtension
)


async def of_claim(session: AsyncSession, claim_id: int) -> WarrantyExtension | None:
    return await _OF_CLAIM.one(session, claim_id=claim_id)


async def of_products(session: AsyncSession, product_ids: Iterable[int]) -> dict[int, list[Any]]:
    """Each product's extensions (rows of claim_id, months, starts_on, ends_on), newest first: one query
    per IDS_PER_QUERY products, whatever number of extensions they have."""
    ids = list(dict.fromkeys(product_ids))
    found: dict[int, list[Any]] = {product_id: [] for product_id in ids}
    for start in range(0, len(ids), IDS_PER_QUERY):
        for row in await _OF_PRODUCTS.all(session, product_ids=ids[start : start + IDS_PER_QUERY]):
            found[row.product_id].append(row)
    return found


_extensions = WarrantyExtension.__table__.c
# Read by every product list: on the driver's connection (app.core.driver_reads).
_OF_PRODUCTS: DriverRead[Any] = DriverRead(
    select(
        _extensions.product_id,
        _extensions.claim_id,
        _extensions.months,
        _extensions.starts_on,
        _extensions.ends_on,
    )
    .where(_extensions.product_id.in_(bindparam("product_ids", expanding=True)))
    .order_by(_extensions.created_at.desc(), _extensions.id.desc())
)
