"""Warranty extensions (app.products.extensions): one per resolved claim, from its resolution day, moving
the product's expiry when added and back when withdrawn; each product's extensions read newest first,
in one query per IDS_PER_QUERY products."""

from __future__ import annotations

from datetime import date

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.models import Claim, Product, WarrantyExtension
from app.products import extensions
from tests.factories.claims import create_claim
from tests.factories.products import create_product
from tests.factories.users import create_user
from tests.helpers import count_queries


async def _expiry(app: FastAPI, product_id: int) -> date:
    async with app.state.sessionmaker() as session:
        return (await session.get_one(Product, product_id)).warranty_expires_on


async def test_an_extension_moves_the_expiry_and_withdrawing_it_moves_it_back(app: FastAPI) -> None:
    owner = await create_user(app)
    product = await create_product(app, owner, purchase_date=date(2024, 1, 31), warranty_period_months=12)
    claim = await create_claim(app, product, status="closed")

    async with app.state.sessionmaker() as session, session.begin():
        await extensions.extend(session, await session.get_one(Claim, claim.id), 13, date(2025, 1, 31))
    assert await _expiry(app, product.id) == date(2026, 2, 28)  # 13 calendar months, to the month's end
    async with app.state.sessionmaker() as session:
        extension = await extensions.of_claim(session, claim.id)
    assert extension is not None
    assert (extension.months, extension.starts_on, extension.ends_on) == (
        13,
        date(2025, 1, 31),
        date(2026, 2, 28),
    )

    for _ in range(2):  # again: nothing left to withdraw
        async with app.state.sessionmaker() as session, session.begin():
            await extensions.withdraw(session, await session.get_one(Claim, claim.id))
        assert await _expiry(app, product.id) == date(2025, 1, 31)
    async with app.state.sessionmaker() as session:
        assert await extensions.of_claim(session, claim.id) is None
        assert list(await session.scalars(select(WarrantyExtension.id))) == []


async def test_an_extension_ending_before_the_own_end_leaves_the_expiry(app: FastAPI) -> None:
    owner = await create_user(app)
    product = await create_product(app, owner, purchase_date=date(2024, 1, 1), warranty_period_months=120)
    claim = await create_claim(app, product, status="closed")

    async with app.state.sessionmaker() as session, session.begin():
        await extensions.extend(session, await session.get_one(Claim, claim.id), 6, date(2025, 1, 1))
    assert await _expiry(app, product.id) == date(2034, 1, 1)


async def test_each_products_extensions_are_read_newest_first_with_one_query_per_chunk_of_ids(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(extensions, "IDS_PER_QUERY", 2)
    owner = await create_user(app)
    twice, never, once = [await create_product(app, owner) for _ in range(3)]
    claims = [await create_claim(app, product, status="closed") for product in (twice, twice, once)]
    for claim, months in zip(claims, (6, 12, 3), strict=True):
        async with app.state.sessionmaker() as session, session.begin():
            await extensions.extend(session, await session.get_one(Claim, claim.id), months, date(2026, 2, 1))

    async with app.state.sessionmaker() as session:
        with count_queries(app) as statements:
            found = await extensions.of_products(session, [twice.id, never.id, once.id, twice.id])

    assert len(statements) == 2  # three products, two per query
    assert list(found) == [twice.id, never.id, once.id]
    assert [(row.claim_id, row.months) for row in found[twice.id]] == [(claims[1].id, 12), (claims[0].id, 6)]
    assert found[never.id] == []
    assert [(row.months, row.starts_on, row.ends_on) for row in found[once.id]] == [
        (3, date(2026, 2, 1), date(2026, 5, 1))
    ]
