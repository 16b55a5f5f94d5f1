"""A product's effective expiry (app.products.expiry): the later of its own warranty's end and every
extension's end, kept in the stored column whenever one of them moves."""

from __future__ import annotations

from datetime import date

from fastapi import FastAPI

from app.models import Product, WarrantyExtension
from app.products import expiry
from tests.factories.claims import create_claim
from tests.factories.products import create_product
from tests.factories.users import create_user


async def test_the_stored_expiry_is_the_later_of_the_own_end_and_every_extension(app: FastAPI) -> None:
    owner = await create_user(app)
    created = await create_product(app, owner, purchase_date=date(2024, 1, 31), warranty_period_months=12)
    repaired = [await create_claim(app, created, status="closed") for _ in range(2)]

    async with app.state.sessionmaker() as session, session.begin():
        product = await session.get_one(Product, created.id)
        await expiry.lock(session, product)
        product.warranty_expires_on = date(2000, 1, 1)  # out of step
        await expiry.keep_in_step(session, product)
        assert product.warranty_expires_on == date(2025, 1, 31)  # the own end: 12 months

        for claim, ends_on in zip(repaired, (date(2025, 9, 30), date(2025, 6, 30)), strict=True):
            session.add(
                WarrantyExtension(
                    product_id=product.id,
                    claim_id=claim.id,
                    months=6,
                    starts_on=date(2025, 1, 1),
                    ends_on=ends_on,
                )
            )
        await session.flush()
        await expiry.keep_in_step(session, product)
        assert product.warranty_expires_on == date(2025, 9, 30)  # the latest extension

        product.warranty_period_months, product.warranty_ends_on = None, date(2027, 3, 1)
        await expiry.keep_in_step(session, product)
        assert product.warranty_expires_on == date(2027, 3, 1)  # an own end day later than both

    async with app.state.sessionmaker() as session:
        stored = await session.get_one(Product, created.id)
    assert stored.warranty_expires_on == date(2027, 3, 1)
