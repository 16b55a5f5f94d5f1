"""Products in the database (app.products.repository): who may see a product, the lists' filters, sorts,
cursor pages and counts (kept counts where they answer, counted otherwise, alike), bulk inserts for an
import, the stored expiry kept in step, and what a product's deletion takes."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.core.clock import frozen_time
from app.core.ids import MAX_ID
from app.models import Event, Product, User
from app.products import repository
from app.products.repository import ProductFilter, ProductRepository, ProductSort
from app.realtime.publishing import messages_topic
from tests.factories.claims import create_claim, create_message
from tests.factories.products import create_product, create_receipt
from tests.factories.realtime import publish_event
from tests.factories.users import create_admin, create_user
from tests.helpers import count_queries

TODAY = date(2026, 6, 15)
SOON = 30  # expiring_soon_days


async def _catalogue(app: FastAPI, owner: User) -> dict[str, Product]:
    """Seen on TODAY: expired, expiring soon (the last day of the window too), active (from the day after
    it), and active but voided; created a minute apart."""
    specs: dict[str, dict[str, Any]] = {
        "kettle": {
            "brand": "Bosch",
            "category": "Kitchen",
            "serial_number": "K-100",
            "purchase_date": date(2024, 1, 1),
        },
        "drill": {
            "brand": "bosch",
            "category": "Tools",
            "serial_number": "D_1%",
            "purchase_date": date(2025, 7, 1),
        },
        "phone": {
            "brand": "Apple",
            "category": "Phones",
            "purchase_date": date(2025, 1, 1),
            "warranty_period_months": 24,
        },
        "tv": {
            "brand": "Sony",
            "category": "Living",
            "purchase_date": date(2026, 2, 1),
            "warranty_period_months": 24,
        },
        "lamp": {
            "brand": "Philips",
            "category": "Living",
            "purchase_date": date(2025, 7, 15),
        },  # TODAY + SOON
        "radio": {
            "brand": "Roberts",
            "category": "Living",
            "purchase_date": date(2025, 7, 16),
        },  # a day later
    }
    products = {}
    for minute, (name, fields) in enumerate(specs.items()):
        with frozen_time(datetime(2026, 1, 1, 9, minute, tzinfo=UTC)):
            products[name] = await create_product(
                app, owner, name=name, **{"warranty_period_months": 12, **fields}
            )
    async with app.state.sessionmaker() as session, session.begin():
        tv = await session.get_one(Product, products["tv"].id)
        tv.warranty_voided_at, tv.warranty_void_reason = datetime(2026, 3, 1, tzinfo=UTC), "Opened"
    return products


async def _names(
    app: FastAPI, user: User, where: ProductFilter, sort: ProductSort = ProductSort()
) -> list[str]:
    async with app.state.sessionmaker() as session:
        rows = await ProductRepository(session).page(user, where, sort, today=TODAY, expiring_soon_days=SOON)
    return [row.name for row in rows]


async def test_an_admin_sees_every_owners_products_and_anyone_else_their_own(app: FastAPI) -> None:
    owner, other, admin = await create_user(app), await create_user(app), await create_admin(app)
    product = await create_product(app, owner)
    await create_claim(app, product)
    assert ProductFilter().restricted_to(other) == ProductFilter(viewer_id=other.id)
    assert ProductFilter().restricted_to(admin) == ProductFilter()
    assert ProductFilter(viewer_id=admin.id).restricted_to(admin).viewer_id == admin.id

    async with app.state.sessionmaker() as session:
        products = ProductRepository(session)
        own = await products.get_visible(owner, product.id)
        assert own is not None and own.product.id == product.id and own.has_active_claim  # an open claim
        assert await products.get_visible(other, product.id) is None
        assert (await products.get_visible(admin, product.id)) is not None
        with count_queries(app) as statements:
            for out_of_range in (0, MAX_ID + 1):
                assert await products.get_visible(owner, out_of_range) is None
        assert statements == []


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        (ProductFilter(), ["radio", "lamp", "tv", "phone", "drill", "kettle"]),
        (ProductFilter(brand="BOSCH"), ["drill", "kettle"]),
        (ProductFilter(category="TOOLS"), ["drill"]),
        (ProductFilter(search="d_1%"), ["drill"]),  # LIKE's wildcards taken literally
        (ProductFilter(search="%"), ["drill"]),
        (ProductFilter(search="100"), ["kettle"]),  # the serial number
        (ProductFilter(warranty_status="expired"), ["kettle"]),
        (ProductFilter(warranty_status="expiring_soon"), ["lamp", "drill"]),
        (ProductFilter(warranty_status="active"), ["radio", "phone"]),
        (ProductFilter(warranty_status="void"), ["tv"]),  # whatever its dates
        (ProductFilter(brand="bosch", warranty_status="expired"), ["kettle"]),
    ],
)
async def test_the_filters_and_their_counts(app: FastAPI, where: ProductFilter, expected: list[str]) -> None:
    owner = await create_user(app)
    await _catalogue(app, owner)
    await create_product(app, await create_user(app), name="theirs", brand="Bosch")

    admin = await create_admin(app)

    assert await _names(app, owner, where) == expected
    async with app.state.sessionmaker() as session:
        products = ProductRepository(session)
        mine = await products.count(owner, where, today=TODAY, expiring_soon_days=SOON)
        everyone = await products.count(admin, where, today=TODAY, expiring_soon_days=SOON)
    assert mine == len(expected)
    # Every owner's: a kept count for no filter or one facet, counted otherwise; what the page lists.
    everyones = await _names(app, admin, where)
    assert everyone == len(everyones) and set(expected) <= set(everyones)


@pytest.mark.parametrize("field", ["name", "brand", "purchaseDate", "warrantyExpiresAt", "createdAt"])
@pytest.mark.parametrize("order", ["asc", "desc"])
async def test_pages_after_a_cursor_go_on_where_the_last_one_stopped(
    app: FastAPI, field: str, order: str
) -> None:
    owner = await create_user(app)
    for number in range(7):  # ties on every sort key, so the id decides
        await create_product(app, owner, name="Same" if number % 2 else f"N{number % 3}", brand="Same")
    sort = ProductSort(field, order)
    async with app.state.sessionmaker() as session:
        products = ProductRepository(session)
        whole = await products.page(owner, ProductFilter(), sort, today=TODAY, expiring_soon_days=SOON)
        paged: list[int] = []
        after = None
        while True:
            rows = await products.page(
                owner, ProductFilter(), sort, today=TODAY, expiring_soon_days=SOON, limit=3, after=after
            )
            paged += [row.id for row in rows]
            if len(rows) < 3:
                break
            after = (rows[-1].sort_key, rows[-1].id)
    assert paged == [row.id for row in whole] and len(set(paged)) == 7


async def test_an_import_inserts_in_bulk_with_the_stored_expiry(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(repository, "BULK_ROWS", 2)
    owner = await create_user(app)
    fields = {
        "brand": "Acme",
        "category": "Tools",
        "purchase_date": date(2024, 1, 31),
        "warranty_ends_on": None,
    }
    rows = [{"name": f"P{n}", **fields, "warranty_period_months": n} for n in range(5)]

    async with app.state.sessionmaker() as session, session.begin():
        with count_queries(app) as statements:
            await ProductRepository(session).add_many(owner, rows)

    assert len([s for s in statements if s.lstrip().upper().startswith("INSERT INTO PRODUCTS")]) == 3
    async with app.state.sessionmaker() as session:
        stored = (
            await session.execute(select(Product.name, Product.warranty_expires_on).order_by(Product.name))
        ).all()
        count = await ProductRepository(session).count(
            owner, ProductFilter(brand="acme"), today=TODAY, expiring_soon_days=SOON
        )
    assert [tuple(row) for row in stored] == [
        ("P0", date(2024, 1, 31)),
        ("P1", date(2024, 2, 29)),
        ("P2", date(2024, 3, 31)),
        ("P3", date(2024, 4, 30)),
        ("P4", date(2024, 5, 31)),
    ]
    assert count == 5


async def test_an_update_keeps_the_stored_expiry_in_step(app: FastAPI) -> None:
    product = await create_product(app, await create_user(app), purchase_date=date(2024, 1, 31))
    async with app.state.sessionmaker() as session, session.begin():
        stored = await session.get_one(Product, product.id)
        await ProductRepository(session).update(stored, {"warranty_period_months": 1, "name": "Renamed"})
    async with app.state.sessionmaker() as session:
        stored = await session.get_one(Product, product.id)
    assert (stored.name, stored.warranty_expires_on) == ("Renamed", date(2024, 2, 29))


async def test_a_products_files_claims_and_events_go_with_it(app: FastAPI) -> None:
    owner = await create_user(app)
    product, kept = await create_product(app, owner), await create_product(app, owner)
    receipt, kept_receipt = await create_receipt(app, product), await create_receipt(app, kept)
    older = await create_claim(app, product, status="closed", description="First")
    newer = await create_claim(app, product, description="Second")
    attachment = {"attachment_name": "a.png", "attachment_mime": "image/png", "attachment_size": 1}
    await create_message(app, older, owner, attachment_key="attachments/a.png", **attachment)
    await create_message(app, newer, owner)
    kept_claim = await create_claim(app, kept)
    for claim in (older, newer, kept_claim):
        await publish_event(app, messages_topic(claim.id), {"type": "any"})

    async with app.state.sessionmaker() as session, session.begin():
        products = ProductRepository(session)
        claims = await products.claims(owner, product.id)
        assert [(row["id"], row["description"]) for row in claims] == [
            (older.id, "First"),
            (newer.id, "Second"),
        ]
        assert sorted(await products.file_keys(product.id)) == sorted(
            [receipt.storage_key, "attachments/a.png"]
        )
        await products.delete(await session.get_one(Product, product.id))

    async with app.state.sessionmaker() as session:
        assert list(await session.scalars(select(Product.id))) == [kept.id]
        assert list(await session.scalars(select(Event.topic))) == [messages_topic(kept_claim.id)]
        assert await ProductRepository(session).file_keys(kept.id) == [kept_receipt.storage_key]


def test_a_sort_breaks_ties_by_id_in_its_own_direction() -> None:
    ascending = [str(clause) for clause in ProductSort("name", "asc").clauses()]
    descending = [str(clause) for clause in ProductSort("purchaseDate", "desc").clauses()]
    assert ascending == ["lower(products.name) ASC", "products.id ASC"]
    assert descending == ["products.purchase_date DESC", "products.id DESC"]
    parameters = ProductFilter(brand="BoSch", search="50%_off/").parameters(TODAY, SOON)
    assert parameters["brand"] == "bosch" and parameters["search"] == "%50/%/_off//%"
    assert (parameters["today"], parameters["soon"]) == (TODAY, TODAY + timedelta(days=SOON))
