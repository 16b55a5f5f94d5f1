"""Page cache of the product lists: every write shows on the very next list request (also across app
instances sharing the database), and lists run a fixed number of queries whatever their length."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from app.config import Settings
from app.main import create_app
from app.models import Claim, Product, User, WarrantyExtension
from app.models.enums import HouseholdRole
from app.products.warranty import expiry_date
from tests.factories.households import add_member, create_household, household_cast
from tests.factories.products import create_product, create_receipt
from tests.factories.users import auth_headers, create_admin, create_user
from tests.helpers import count_queries
from tests.support.pdf import PDF_BYTES

LISTS = ("/api/products", "/api/products?page=1&limit=10", "/api/admin/products")
NEW = {
    "name": "Toaster",
    "brand": "Smeg",
    "category": "Kitchen",
    "purchaseDate": "2025-05-05",
    "warrantyPeriodMonths": 12,
}


def names(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text
    body = response.json()
    return [item["name"] for item in (body["data"] if isinstance(body, dict) else body)]


async def read_all(client: httpx.AsyncClient, user: User, admin: User, app: FastAPI) -> list[list[str]]:
    """The three lists, as the owner (own lists) and the admin (admin list) see them."""
    own, admins = auth_headers(app, user), auth_headers(app, admin)
    return [names(await client.get(path, headers=admins if "admin" in path else own)) for path in LISTS]


async def test_the_cache_serves_pages_until_a_write_invalidates_them(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user, admin = await create_user(app), await create_admin(app)
    product = await create_product(app, user, name="Kettle")
    assert await read_all(client, user, admin, app) == [["Kettle"]] * 3
    # A change behind the service's back (no invalidation) is not seen: the pages come from the cache.
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(Product).where(Product.id == product.id).values(name="Sneaky"))

    assert await read_all(client, user, admin, app) == [["Kettle"]] * 3


async def test_every_kind_of_write_shows_on_the_next_list_request(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user, admin = await create_user(app), await create_admin(app)
    product = await create_product(app, user, name="Kettle")
    headers = auth_headers(app, user)
    assert await read_all(client, user, admin, app) == [["Kettle"]] * 3

    created = await client.post("/api/products", json=NEW, headers=headers)
    assert created.status_code == 201
    assert await read_all(client, user, admin, app) == [["Toaster", "Kettle"]] * 3

    assert (
        await client.put(f"/api/products/{product.id}", json={"name": "Kettle 2"}, headers=headers)
    ).is_success
    assert await read_all(client, user, admin, app) == [["Toaster", "Kettle 2"]] * 3

    patched = await client.patch(f"/api/products/{product.id}", json={"name": "Kettle 3"}, headers=headers)
    assert patched.is_success
    assert await read_all(client, user, admin, app) == [["Toaster", "Kettle 3"]] * 3

    deleted = await client.delete(f"/api/products/{created.json()['id']}", headers=headers)
    assert deleted.status_code == 204
    assert await read_all(client, user, admin, app) == [["Kettle 3"]] * 3


@pytest.mark.parametrize("write", ["upload", "delete"])
async def test_a_receipt_write_recomputes_the_pages(
    app: FastAPI, client: httpx.AsyncClient, write: str
) -> None:
    user, admin = await create_user(app), await create_admin(app)
    product = await create_product(app, user, name="Kettle")
    receipt = await create_receipt(app, product)
    headers = auth_headers(app, user)
    await read_all(client, user, admin, app)  # warm
    with count_queries(app) as warm:
        await read_all(client, user, admin, app)
    assert not any("FROM products" in statement for statement in warm)
    # Renamed behind the cache's back: only a recomputed page shows the new name.
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(Product).where(Product.id == product.id).values(name="Renamed"))

    if write == "upload":
        files = {"file": ("r.pdf", PDF_BYTES, "application/pdf")}
        response = await client.post(f"/api/products/{product.id}/receipts", headers=headers, files=files)
    else:
        response = await client.delete(f"/api/products/{product.id}/receipts/{receipt.id}", headers=headers)

    assert response.is_success
    assert await read_all(client, user, admin, app) == [["Renamed"]] * 3


async def test_a_user_deleted_by_cascade_empties_the_admin_list(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user, admin = await create_user(app), await create_admin(app)
    await create_product(app, user, name="Kettle")
    admins = auth_headers(app, admin)
    assert names(await client.get("/api/admin/products", headers=admins)) == ["Kettle"]

    assert (await client.delete(f"/api/users/{user.id}", headers=admins)).status_code == 204

    assert names(await client.get("/api/admin/products", headers=admins)) == []


async def test_claims_opened_and_closed_show_in_has_active_claim_at_once(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user, admin = await create_user(app), await create_admin(app)
    product = await create_product(app, user)
    own, admins = auth_headers(app, user), auth_headers(app, admin)

    async def flags() -> list[bool]:
        found = []
        for path in LISTS:
            body = (await client.get(path, headers=admins if "admin" in path else own)).json()
            found.append((body["data"] if isinstance(body, dict) else body)[0]["hasActiveClaim"])
        return found

    assert await flags() == [False] * 3
    opened = await client.post(
        "/api/claims", json={"productId": product.id, "description": "Broken"}, headers=own
    )
    assert opened.status_code == 201, opened.text
    assert await flags() == [True] * 3
    claim_path = f"/api/claims/{opened.json()['id']}"
    for status in ("in_progress", "resolved"):
        moved = await client.post(f"{claim_path}/status", json={"status": status}, headers=admins)
        assert moved.status_code == 200, moved.text
    assert (await client.post(f"{claim_path}/close", headers=own)).status_code == 200

    assert await flags() == [False] * 3


@asynccontextmanager
async def second_instance(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """Another app on the same database and settings: what a second process would be."""
    other = create_app(settings)
    async with other.router.lifespan_context(other):
        transport = httpx.ASGITransport(app=other, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield client


async def test_two_instances_see_each_others_writes_at_once(
    app: FastAPI, client: httpx.AsyncClient, settings: Settings
) -> None:
    user, admin = await create_user(app), await create_admin(app)
    headers = auth_headers(app, user)
    async with second_instance(settings) as other:
        for instance in (client, other):
            assert await read_all(instance, user, admin, app) == [[]] * 3  # both caches warm

        created = await other.post("/api/products", json=NEW, headers=headers)
        assert created.status_code == 201
        assert await read_all(client, user, admin, app) == [["Toaster"]] * 3

        path = f"/api/products/{created.json()['id']}"
        assert (await client.patch(path, json={"name": "Grill"}, headers=headers)).is_success
        assert await read_all(other, user, admin, app) == [["Grill"]] * 3

        files = {"file": ("r.pdf", PDF_BYTES, "application/pdf")}
        assert (await other.post(f"{path}/receipts", headers=headers, files=files)).status_code == 201
        assert len((await client.get(f"{path}/receipts", headers=headers)).json()) == 1

        assert (await client.delete(path, headers=headers)).status_code == 204
        assert await read_all(other, user, admin, app) == [[]] * 3


async def _products(app: FastAPI, owner: User, count: int) -> set[int]:
    """`count` products, every other one with an open claim and the others with a closed one that left
    a warranty extension, in one transaction."""
    async with app.state.sessionmaker() as session, session.begin():
        products = [
            Product(
                owner_id=owner.id,
                name=f"Product {number}",
                brand="Acme",
                category="Tools",
                purchase_date=date(2025, 1, 1),
                warranty_period_months=24,
                warranty_expires_on=expiry_date(date(2025, 1, 1), 24),
            )
            for number in range(count)
        ]
        session.add_all(products)
        await session.flush()
        session.add_all(
            Claim(product_id=product.id, customer_id=owner.id, description="Broken")
            for product in products[::2]
        )
        repaired = [
            Claim(product_id=product.id, customer_id=owner.id, description="Fixed", status="closed")
            for product in products[1::2]
        ]
        session.add_all(repaired)
        await session.flush()
        session.add_all(
            WarrantyExtension(
                product_id=claim.product_id,
                claim_id=claim.id,
                months=6,
                starts_on=date(2026, 1, 1),
                ends_on=date(2026, 7, 1),
            )
            for claim in repaired
        )
    return {product.id for product in products[::2]}


async def _queries(
    app: FastAPI, client: httpx.AsyncClient, path: str, user: User, claimed: set[int]
) -> list[str]:
    headers = auth_headers(app, user)
    with count_queries(app) as statements:
        response = await client.get(path, headers=headers)
    assert response.status_code == 200, response.text
    body = response.json()
    items = body["data"] if isinstance(body, dict) else body
    assert items and all(item["hasActiveClaim"] == (item["id"] in claimed) for item in items)
    assert all(len(item["warrantyExtensions"]) == (item["id"] not in claimed) for item in items)
    return statements


@pytest.mark.parametrize("path", ["/api/products", "/api/products?limit=50", "/api/admin/products?limit=100"])
@pytest.mark.parametrize(
    "cached",
    [pytest.param(False, marks=pytest.mark.settings(cache_ttl=0)), pytest.param(True, id="cache-on")],
)
async def test_lists_run_the_same_queries_for_1_and_100_products(
    app: FastAPI, client: httpx.AsyncClient, path: str, cached: bool
) -> None:
    owner = await create_admin(app)
    claimed = await _products(app, owner, 1)
    one_cold = await _queries(app, client, path, owner, claimed)
    one_warm = await _queries(app, client, path, owner, claimed)
    claimed |= await _products(app, owner, 99)
    app.state.page_cache.clear()  # the rows were added behind the cache's back

    hundred_cold = await _queries(app, client, path, owner, claimed)
    hundred_warm = await _queries(app, client, path, owner, claimed)

    # The user, the count, the page, its warranty extensions (and the cache's version check when on).
    assert len(hundred_cold) == len(one_cold) <= 5, hundred_cold
    assert len(hundred_warm) == len(one_warm), hundred_warm
    if cached:  # a warm page costs the user lookup and the version check
        assert len(hundred_warm) == 2 and not any("FROM products" in q for q in hundred_warm), hundred_warm
    else:
        assert len(hundred_warm) == len(hundred_cold)


# Shared products (contract 17.3): every member's list is cached under their own scope; a change to a shared
# product invalidates every member's.

MEMBER_LISTS = ("/api/products", "/api/products?page=1&limit=10")


async def _names_of(client: httpx.AsyncClient, app: FastAPI, *users: User) -> list[list[str]]:
    return [
        names(await client.get(path, headers=auth_headers(app, user)))
        for user in users
        for path in MEMBER_LISTS
    ]


async def _rename_behind_the_caches_back(app: FastAPI, product: Product, name: str) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(Product).where(Product.id == product.id).values(name=name))


async def test_unsharing_removes_it_from_every_members_list_at_once(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await household_cast(app)
    product = await create_product(app, cast.owner, name="Fridge", household_id=cast.household.id)
    assert await _names_of(client, app, cast.member, cast.viewer) == [["Fridge"]] * 4
    await _rename_behind_the_caches_back(app, product, "Sneaky")
    assert await _names_of(client, app, cast.member, cast.viewer) == [["Fridge"]] * 4  # served from the cache

    unshared = await client.patch(
        f"/api/products/{product.id}", json={"householdId": None}, headers=auth_headers(app, cast.owner)
    )

    assert unshared.status_code == 200, unshared.text
    assert await _names_of(client, app, cast.member, cast.viewer) == [[]] * 4
    assert await _names_of(client, app, cast.owner) == [["Sneaky"]] * 2


async def test_sharing_and_moving_show_in_both_households_lists_at_once(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await household_cast(app)
    second = await create_household(app, cast.owner)
    newcomer = await create_user(app)
    await add_member(app, second, newcomer)
    product = await create_product(app, cast.owner, name="Fridge")
    path, owner = f"/api/products/{product.id}", auth_headers(app, cast.owner)
    assert await _names_of(client, app, cast.member, newcomer) == [[]] * 4

    assert (await client.patch(path, json={"householdId": cast.household.id}, headers=owner)).is_success
    assert await _names_of(client, app, cast.member, newcomer) == [["Fridge"]] * 2 + [[]] * 2

    assert (await client.patch(path, json={"householdId": second.id}, headers=owner)).is_success
    assert await _names_of(client, app, cast.member, newcomer) == [[]] * 2 + [["Fridge"]] * 2


@pytest.mark.parametrize("write", ["edit", "upload", "void"])
async def test_a_members_write_shows_in_every_members_list_at_once(
    app: FastAPI, client: httpx.AsyncClient, write: str
) -> None:
    cast = await household_cast(app)
    product = await create_product(app, cast.owner, name="Fridge", household_id=cast.household.id)
    everyone = (cast.owner, cast.member, cast.viewer)
    assert await _names_of(client, app, *everyone) == [["Fridge"]] * 6
    await _rename_behind_the_caches_back(app, product, "Renamed")  # only recomputed pages show it
    path, member = f"/api/products/{product.id}", auth_headers(app, cast.member)

    if write == "edit":
        response = await client.patch(path, json={"store": "Corner shop"}, headers=member)
    elif write == "upload":
        files = {"file": ("r.pdf", PDF_BYTES, "application/pdf")}
        response = await client.post(f"{path}/receipts", files=files, headers=member)
    else:
        response = await client.post(f"{path}/warranty/void", json={"reason": "Dropped."}, headers=member)

    assert response.is_success, response.text
    assert await _names_of(client, app, *everyone) == [["Renamed"]] * 6


async def test_a_claim_filed_and_closed_by_a_member_shows_in_every_members_list_at_once(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await household_cast(app)
    product = await create_product(app, cast.owner, household_id=cast.household.id)
    everyone = (cast.owner, cast.member, cast.viewer)

    async def flags() -> list[bool]:
        found = []
        for user in everyone:
            for path in MEMBER_LISTS:
                body = (await client.get(path, headers=auth_headers(app, user))).json()
                found.append((body["data"] if isinstance(body, dict) else body)[0]["hasActiveClaim"])
        return found

    assert await flags() == [False] * 6
    opened = await client.post(
        "/api/claims",
        json={"productId": product.id, "description": "Broken"},
        headers=auth_headers(app, cast.member),
    )
    assert opened.status_code == 201, opened.text
    assert await flags() == [True] * 6

    claim_path, admin = f"/api/claims/{opened.json()['id']}", auth_headers(app, await create_admin(app))
    for status in ("in_progress", "resolved"):
        moved = await client.post(f"{claim_path}/status", json={"status": status}, headers=admin)
        assert moved.status_code == 200, moved.text
    closed = await client.post(f"{claim_path}/close", headers=auth_headers(app, cast.member))
    assert closed.status_code == 200, closed.text
    assert await flags() == [False] * 6


async def _memberships(app: FastAPI, user: User, count: int) -> list[int]:
    """`count` more households of other people with `user` in them, each sharing two products."""
    households = []
    for _ in range(count):
        owner = await create_user(app)
        household = await create_household(app, owner)
        await add_member(app, household, user, HouseholdRole.VIEWER)
        for _ in range(2):
            await create_product(app, owner, household_id=household.id)
        households.append(household.id)
    return households


async def _statements(app: FastAPI, client: httpx.AsyncClient, path: str, user: User) -> list[str]:
    with count_queries(app) as statements:
        response = await client.get(path, headers=auth_headers(app, user))
    assert response.status_code == 200, response.text
    return statements


@pytest.mark.settings(cache_ttl=0)
@pytest.mark.parametrize(
    "path",
    [
        "/api/products",
        "/api/products?limit=50",
        "/api/products?owner=me&limit=50",
        "/api/products?householdId={household}&limit=50",
        "/api/products?brand=Gaggia&householdId={household}",
    ],
)
async def test_a_members_list_runs_the_same_statements_in_0_1_and_5_households(
    app: FastAPI, client: httpx.AsyncClient, path: str
) -> None:
    user = await create_user(app)
    filtered = await create_household(app, await create_user(app))  # the user joins it second
    # Their own product, in that household (written directly): every step's page has rows, so each one
    # reads their warranty extensions.
    await create_product(app, user, household_id=filtered.id)
    path = path.format(household=filtered.id)

    none = await _statements(app, client, path, user)
    await add_member(app, filtered, user)
    await create_product(app, user)
    one = await _statements(app, client, path, user)
    await _memberships(app, user, 4)
    five = await _statements(app, client, path, user)

    # The user, the count (paged), the page, its warranty extensions: the memberships are a subquery.
    assert len(none) == len(one) == len(five) <= 4, five
    assert sum("household_members" in statement for statement in five) <= 2  # the page and its count
    total = len((await client.get("/api/products", headers=auth_headers(app, user))).json())
    assert total == 2 + 2 * 4
