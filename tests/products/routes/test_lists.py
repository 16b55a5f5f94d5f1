"""The product lists (app.products.routes.lists): the caller's own as a bare array or paged, everyone's for
admins in the envelope, with their filters, sorts and pages."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from app.models import Product, User
from app.models.enums import HouseholdRole
from tests.factories.claims import create_claim
from tests.factories.households import add_member, create_household
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error
from tests.products.support import create_drill

START = datetime(2026, 1, 15, 9, 0, tzinfo=UTC)
NOON = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


async def _catalogue(app: FastAPI, owner: User) -> dict[str, Product]:
    """Four products created a minute apart (so newest first is a known order)."""
    specs: list[tuple[str, dict[str, Any]]] = [
        ("kettle", {"name": "kettle", "brand": "Bosch", "category": "Kitchen", "serial_number": "K-100"}),
        ("drill", {"name": "Drill", "brand": "bosch", "category": "Tools", "serial_number": "D_1%"}),
        ("phone", {"name": "Phone", "brand": "Apple", "category": "Phones", "serial_number": None}),
        ("tv", {"name": "TV", "brand": "Sony", "category": "Living", "serial_number": "XBOSCH"}),
    ]
    dates = {  # expiry dates seen from NOON: expired, expiring_soon, active, active
        "kettle": (date(2024, 1, 1), 12),
        "drill": (date(2025, 7, 1), 12),
        "phone": (date(2026, 1, 1), 24),
        "tv": (date(2026, 1, 1), 24),
    }
    products = {}
    for minute, (key, fields) in enumerate(specs):
        purchased, months = dates[key]
        with frozen_time(START + timedelta(minutes=minute)):
            products[key] = await create_product(
                app, owner, purchase_date=purchased, warranty_period_months=months, **fields
            )
    return products


def ids(response: httpx.Response, products: dict[str, Product]) -> list[str]:
    assert response.status_code == 200, response.text
    body = response.json()
    items = body["data"] if isinstance(body, dict) else body
    names = {product.id: key for key, product in products.items()}
    return [names[item["id"]] for item in items]


async def test_list_is_a_bare_array_of_the_callers_own_products_newest_first(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app)
    products = await _catalogue(app, user)
    await create_product(app, await create_user(app), name="Not mine")
    await create_claim(app, products["drill"])

    response = await client.get("/api/products", headers=auth_headers(app, user))

    assert isinstance(response.json(), list)
    assert ids(response, products) == ["tv", "phone", "drill", "kettle"]
    flags = {item["id"]: item["hasActiveClaim"] for item in response.json()}
    assert flags == {product.id: key == "drill" for key, product in products.items()}


async def test_an_admins_own_list_has_only_their_own_products(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    admin = await create_admin(app)
    mine = await create_product(app, admin, name="Admin's")
    await create_product(app, await create_user(app))

    response = await client.get("/api/products", headers=auth_headers(app, admin))

    assert [item["id"] for item in response.json()] == [mine.id]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("brand=bosch", ["drill", "kettle"]),  # any case
        ("brand=BOSCH&category=tools", ["drill"]),
        ("brand=Bos", []),  # exact, not a substring
        ("category=%20Phones%20", ["phone"]),  # trimmed
        ("search=bosch", ["tv", "drill", "kettle"]),  # brand or serial number
        ("search=KETTLE", ["kettle"]),
        ("search=k-1", ["kettle"]),
        ("search=%25", ["drill"]),  # LIKE wildcards are plain characters
        ("search=_", ["drill"]),
        ("search=zzz", []),
        ("search=%20%20", ["tv", "phone", "drill", "kettle"]),  # blank means no filter
        ("warrantyStatus=expired", ["kettle"]),
        ("warrantyStatus=expiring_soon", ["drill"]),
        ("warrantyStatus=active", ["tv", "phone"]),
        ("warrantyStatus=active&search=sony", ["tv"]),
        ("sort=name&order=asc", ["drill", "kettle", "phone", "tv"]),  # any case
        ("sort=name", ["tv", "phone", "kettle", "drill"]),
        ("sort=brand&order=asc", ["phone", "kettle", "drill", "tv"]),  # tie (bosch) by id
        ("sort=brand&order=desc", ["tv", "drill", "kettle", "phone"]),
        ("sort=purchaseDate&order=asc", ["kettle", "drill", "phone", "tv"]),
        ("sort=warrantyExpiresAt&order=desc", ["tv", "phone", "drill", "kettle"]),
        ("sort=createdAt&order=asc", ["kettle", "drill", "phone", "tv"]),
        ("order=asc", ["kettle", "drill", "phone", "tv"]),
    ],
)
async def test_filters_and_sorts(
    app: FastAPI, client: httpx.AsyncClient, query: str, expected: list[str]
) -> None:
    user = await create_user(app)
    products = await _catalogue(app, user)
    headers = auth_headers(app, user)

    with frozen_time(NOON):
        response = await client.get(f"/api/products?{query}", headers=headers)

    assert ids(response, products) == expected


async def test_the_envelope_meta_and_links_keep_the_filters(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    for number in range(5):
        await create_product(app, user, name=f"Item {number}", brand="Acme")
    await create_product(app, user, brand="Other")

    response = await client.get(
        "/api/products?brand=acme&sort=name&order=asc&page=2&limit=2", headers=auth_headers(app, user)
    )

    assert response.status_code == 200
    body = response.json()
    assert [item["name"] for item in body["data"]] == ["Item 2", "Item 3"]
    assert isinstance(body["meta"].pop("next_cursor"), str)  # a page follows
    assert body["meta"] == {"current_page": 2, "per_page": 2, "total": 5, "last_page": 3, "from": 3, "to": 4}
    base = "/api/products?brand=acme&sort=name&order=asc"
    assert body["links"] == {
        "first": f"{base}&page=1&limit=2",
        "last": f"{base}&page=3&limit=2",
        "prev": f"{base}&page=1&limit=2",
        "next": f"{base}&page=3&limit=2",
    }


async def test_page_alone_gives_the_envelope_with_the_default_limit(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app)
    await create_product(app, user)

    body = (await client.get("/api/products?page=1", headers=auth_headers(app, user))).json()

    assert body["meta"] == {
        "current_page": 1,
        "per_page": 20,
        "total": 1,
        "last_page": 1,
        "from": 1,
        "to": 1,
        "next_cursor": None,
    }
    assert body["links"] == {
        "first": "/api/products?page=1&limit=20",
        "last": "/api/products?page=1&limit=20",
        "prev": None,
        "next": None,
    }


async def test_a_page_past_the_end_is_empty(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    await create_product(app, user)

    response = await client.get("/api/products?page=7&limit=10", headers=auth_headers(app, user))

    assert response.status_code == 200
    body = response.json()
    assert body["data"] == []
    assert body["meta"] == {
        "current_page": 7,
        "per_page": 10,
        "total": 1,
        "last_page": 1,
        "from": None,
        "to": None,
        "next_cursor": None,
    }
    assert body["links"]["prev"] == "/api/products?page=6&limit=10"
    assert body["links"]["next"] is None


async def test_an_empty_list(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    headers = auth_headers(app, user)

    assert (await client.get("/api/products", headers=headers)).json() == []
    body = (await client.get("/api/products?limit=5", headers=headers)).json()
    assert body["meta"] == {
        "current_page": 1,
        "per_page": 5,
        "total": 0,
        "last_page": 1,
        "from": None,
        "to": None,
        "next_cursor": None,
    }


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("page=0", "VALIDATION_INVALID_PAGE"),
        ("page=-1", "VALIDATION_INVALID_PAGE"),
        ("page=x", "VALIDATION_INVALID_PAGE"),
        ("page=1.5", "VALIDATION_INVALID_PAGE"),
        ("limit=0", "VALIDATION_INVALID_LIMIT"),
        ("limit=abc", "VALIDATION_INVALID_LIMIT"),
        ("limit=101", "VALIDATION_LIMIT_EXCEEDED"),
    ],
)
async def test_invalid_page_and_limit(app: FastAPI, client: httpx.AsyncClient, query: str, code: str) -> None:
    user = await create_user(app)
    admin = await create_admin(app)

    for path, caller in (("/api/products", user), ("/api/admin/products", admin)):
        assert_error(await client.get(f"{path}?{query}", headers=auth_headers(app, caller)), 400, code)


async def test_a_limit_over_100_names_the_maximum(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)

    response = await client.get("/api/products?limit=250", headers=auth_headers(app, user))

    body = assert_error(response, 400, "VALIDATION_LIMIT_EXCEEDED")
    assert body["details"] == {"max_limit": 100, "requested": 250}


@pytest.mark.parametrize(("maker", "per_page"), [(create_user, 50), (create_supplier, 50)])
async def test_a_limit_over_the_role_maximum_is_lowered(
    app: FastAPI, client: httpx.AsyncClient, maker: Any, per_page: int
) -> None:
    user = await maker(app)

    body = (await client.get("/api/products?limit=80", headers=auth_headers(app, user))).json()

    assert body["meta"]["per_page"] == per_page
    assert body["links"]["first"] == f"/api/products?page=1&limit={per_page}"


async def test_admin_list_has_every_product_always_in_the_envelope(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    admin = await create_admin(app)
    ann, bob = await create_user(app), await create_user(app)
    with frozen_time(START):
        first = await create_product(app, ann, brand="Bosch")
    with frozen_time(START + timedelta(minutes=1)):
        second = await create_product(app, bob, brand="Apple")
    headers = auth_headers(app, admin)

    everything = await client.get("/api/admin/products", headers=headers)
    filtered = await client.get("/api/admin/products?brand=apple&limit=80", headers=headers)

    assert everything.status_code == 200
    body = everything.json()
    assert [item["id"] for item in body["data"]] == [second.id, first.id]
    assert body["meta"] == {
        "current_page": 1,
        "per_page": 20,
        "total": 2,
        "last_page": 1,
        "from": 1,
        "to": 2,
        "next_cursor": None,
    }
    assert filtered.json()["meta"]["per_page"] == 80
    assert filtered.json()["links"]["first"] == "/api/admin/products?brand=apple&page=1&limit=80"
    assert [item["id"] for item in filtered.json()["data"]] == [second.id]


@pytest.mark.parametrize("maker", [create_user, create_supplier])
async def test_admin_list_is_403_for_others(app: FastAPI, client: httpx.AsyncClient, maker: Any) -> None:
    caller = await maker(app)

    assert_error(await client.get("/api/admin/products", headers=auth_headers(app, caller)), 403, "FORBIDDEN")
    assert_error(await client.get("/api/admin/products"), 401, "AUTH_REQUIRED")


async def test_a_page_number_far_past_the_end_is_an_empty_page(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """Found by schemathesis: a page number in the quintillions overflowed the database's OFFSET (500)."""
    owner = await create_user(app)
    await create_product(app, owner)
    response = await client.get(
        "/api/products",
        params={"page": "257454125581895488", "limit": "95"},
        headers=auth_headers(app, owner),
    )
    assert response.status_code == 200
    assert response.json()["data"] == [] and response.json()["meta"]["current_page"] == 257454125581895488


# Shared products (contract 17.3)


async def _households(app: FastAPI) -> tuple[dict[str, User], dict[str, Product], dict[str, int]]:
    """Olga owns household "home" (Max a member, Vera a viewer); Xavier owns "club", where Max is a member
    too. Products a minute apart, newest last."""
    people = {key: await create_user(app, name=key.title()) for key in ("olga", "max", "vera", "xavier")}
    home = await create_household(app, people["olga"])
    club = await create_household(app, people["xavier"])
    await add_member(app, home, people["max"])
    await add_member(app, home, people["vera"], HouseholdRole.VIEWER)
    await add_member(app, club, people["max"])
    specs = [
        ("fridge", "olga", home.id),
        ("private", "olga", None),
        ("bike", "max", None),
        ("drill", "max", home.id),
        ("tent", "xavier", club.id),
        ("strangers", None, None),
    ]
    products = {}
    for minute, (key, owner, household_id) in enumerate(specs):
        with frozen_time(START + timedelta(minutes=minute)):
            products[key] = await create_product(
                app,
                people[owner] if owner else await create_user(app),
                name=key,
                brand="Bosch" if key in ("drill", "tent") else "Acme",
                household_id=household_id,
            )
    return people, products, {"home": home.id, "club": club.id}


@pytest.mark.parametrize(
    ("who", "query", "expected"),
    [
        ("max", "", ["tent", "drill", "bike", "fridge"]),
        ("vera", "", ["drill", "fridge"]),
        ("olga", "", ["drill", "private", "fridge"]),
        ("xavier", "", ["tent"]),
        ("max", "owner=me", ["drill", "bike"]),
        ("vera", "owner=me", []),
        ("max", "householdId={home}", ["drill", "fridge"]),
        ("max", "householdId={club}", ["tent"]),
        ("olga", "householdId={club}", []),  # not hers to see: an empty list, not a 404
        ("max", "owner=me&householdId={home}", ["drill"]),
        ("max", "brand=bosch", ["tent", "drill"]),
        ("max", "search=i&sort=name&order=asc", ["bike", "drill", "fridge"]),
        ("vera", "warrantyStatus=active&householdId={home}", ["drill", "fridge"]),
    ],
)
async def test_a_members_list_has_their_own_and_the_shared_products(
    app: FastAPI, client: httpx.AsyncClient, who: str, query: str, expected: list[str]
) -> None:
    people, products, households = await _households(app)
    headers = auth_headers(app, people[who])
    path = f"/api/products?{query.format(**households)}"

    with frozen_time(NOON):
        listed = await client.get(path, headers=headers)
        paged = await client.get(f"{path}&limit=2", headers=headers)

    assert ids(listed, products) == expected
    assert paged.json()["meta"]["total"] == len(expected)
    assert ids(paged, products) == expected[:2]


async def test_list_items_name_the_owner_and_the_household(app: FastAPI, client: httpx.AsyncClient) -> None:
    people, _, households = await _households(app)

    for path in ("/api/products", "/api/products?limit=10"):
        body = (await client.get(path, headers=auth_headers(app, people["vera"]))).json()
        items = body["data"] if isinstance(body, dict) else body
        shown = {item["name"]: (item["householdId"], item["owner"]) for item in items}
        assert shown == {
            "drill": (households["home"], {"id": people["max"].id, "name": "Max"}),
            "fridge": (households["home"], {"id": people["olga"].id, "name": "Olga"}),
        }
    own = (await client.get("/api/products?owner=me", headers=auth_headers(app, people["olga"]))).json()
    assert {item["name"]: item["householdId"] for item in own} == {
        "fridge": households["home"],
        "private": None,
    }


async def test_the_admin_list_is_unchanged_by_households(app: FastAPI, client: httpx.AsyncClient) -> None:
    _, products, households = await _households(app)
    admin = await create_admin(app)

    body = (await client.get("/api/admin/products?limit=50", headers=auth_headers(app, admin))).json()

    assert body["meta"]["total"] == len(products)
    assert {item["name"]: item["householdId"] for item in body["data"]}["tent"] == households["club"]
    assert (await client.get("/api/products", headers=auth_headers(app, admin))).json() == []


@pytest.mark.parametrize(
    "query",
    [
        "owner=you",
        "owner=",
        "owner=ME",
        "householdId=abc",
        "householdId=0",
        "householdId=%201",
        "householdId=2147483648",
    ],
)
async def test_bad_sharing_filters_are_400(app: FastAPI, client: httpx.AsyncClient, query: str) -> None:
    user = await create_user(app)

    for path in ("/api/products", "/api/products/export.csv"):
        response = await client.get(f"{path}?{query}", headers=auth_headers(app, user))
        field = query.split("=")[0]
        assert field in assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]


@pytest.mark.parametrize(
    "order", ["sort=createdAt&order=desc", "sort=name&order=asc", "sort=brand&order=desc"]
)
async def test_pages_and_cursors_merge_own_and_shared_products_in_order(
    app: FastAPI, client: httpx.AsyncClient, order: str
) -> None:
    """A member's list reads their own products and the shared ones apart and merges them: every page,
    by number or by cursor, is the bare list's slice, each product once."""
    people, _, households = await _households(app)
    member = people["max"]
    for number in range(9):  # own and shared, interleaved in time, names and brands
        owner, household = (member, None) if number % 3 else (people["olga"], households["home"])
        with frozen_time(START + timedelta(hours=1, minutes=number)):
            await create_product(
                app,
                owner,
                name=f"{'n' * (number % 4)}item {number}",
                brand=f"B{number % 2}",
                household_id=household,
            )
    headers = auth_headers(app, member)
    everything = [item["id"] for item in (await client.get(f"/api/products?{order}", headers=headers)).json()]
    assert len(everything) == 4 + 9

    by_number, by_cursor, cursor = [], [], None
    for page in range(1, 6):
        body = (await client.get(f"/api/products?{order}&page={page}&limit=3", headers=headers)).json()
        by_number += [item["id"] for item in body["data"]]
        assert body["meta"]["total"] == len(everything)
        query = f"&cursor={cursor}" if cursor else ""
        walked = (await client.get(f"/api/products?{order}&limit=3{query}", headers=headers)).json()
        by_cursor += [item["id"] for item in walked["data"]]
        cursor = walked["meta"]["next_cursor"]

    assert by_number == by_cursor == everything
    assert cursor is None


async def test_lists_filter_and_sort_on_the_end_day(app: FastAPI, client: httpx.AsyncClient) -> None:
    headers = auth_headers(app, await create_user(app))
    admin = auth_headers(app, await create_admin(app))
    late = (await create_drill(client, headers, NOON, warrantyEndsOn="2029-01-01", name="late")).json()
    soon = (await create_drill(client, headers, NOON, warrantyEndsOn="2026-06-20", name="soon")).json()
    by_months = (
        await create_drill(client, headers, NOON, warrantyPeriodMonths=36, name="months")
    ).json()  # 2028-02-10
    gone = (await create_drill(client, headers, NOON, warrantyEndsOn="2026-06-14", name="gone")).json()

    with frozen_time(NOON):
        listed = {
            status: [
                p["id"]
                for p in (await client.get(f"/api/products?warrantyStatus={status}", headers=headers)).json()
            ]
            for status in ("active", "expiring_soon", "expired")
        }
        ordered = await client.get("/api/products?sort=warrantyExpiresAt&order=asc&limit=10", headers=headers)
        everyone = await client.get("/api/admin/products?warrantyStatus=expired", headers=admin)

    assert listed == {
        "active": [by_months["id"], late["id"]],  # newest first
        "expiring_soon": [soon["id"]],
        "expired": [gone["id"]],
    }
    assert [p["name"] for p in ordered.json()["data"]] == ["gone", "soon", "months", "late"]
    assert ordered.json()["meta"]["total"] == 4
    assert [p["id"] for p in everyone.json()["data"]] == [gone["id"]]
