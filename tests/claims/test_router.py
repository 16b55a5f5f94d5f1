"""Opening claims, the lists and the detail."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.claims.repository import ClaimRepository
from app.core.clock import frozen_time
from app.errors import Conflict
from app.models import Claim
from tests.factories.claims import claim_cast, create_claim, create_message
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error

NOW = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=5)


async def test_open_a_claim(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann = await create_user(app, email="ann@example.com")
    product = await create_product(app, ann, name="Kettle", brand="Bosch")
    headers = auth_headers(app, ann)

    with frozen_time(NOW):
        response = await client.post(
            "/api/claims", json={"productId": product.id, "description": " Leaks. "}, headers=headers
        )

    assert response.status_code == 201, response.text
    body = response.json()
    assert body == {
        "id": body["id"],
        "type": "claim",
        "productId": product.id,
        "productName": "Kettle",
        "productBrand": "Bosch",
        "customerId": ann.id,
        "customerEmail": "ann@example.com",
        "status": "open",
        "description": "Leaks.",
        "createdAt": NOW.isoformat(),
        "messageCount": 0,
        "organization": None,  # no organization handles Bosch
    }
    assert response.headers["location"] == f"/api/claims/{body['id']}"
    listed = await client.get("/api/claims", headers=headers)
    assert listed.json() == [body]
    detail = await client.get(response.headers["location"], headers=headers)
    assert detail.json() == {
        "id": body["id"],
        "status": "open",
        "description": "Leaks.",
        "product": {"id": product.id, "name": "Kettle", "brand": "Bosch"},
        "productId": product.id,
        "customerId": ann.id,
        "supplierId": None,
        "organization": None,
        "messages": [],
        "hasMoreMessages": False,
        "outcome": None,
        "outcomeNote": None,
        "warrantyExtension": None,
        "createdAt": NOW.isoformat(),
        "updatedAt": NOW.isoformat(),
    }


async def test_only_the_callers_own_products(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann = await create_user(app)
    bob_product = await create_product(app, await create_user(app))
    admin = await create_admin(app)
    for user in (ann, admin):
        response = await client.post(
            "/api/claims",
            json={"productId": bob_product.id, "description": "x"},
            headers=auth_headers(app, user),
        )
        assert_error(response, 404, "NOT_FOUND")
    missing = await client.post(
        "/api/claims", json={"productId": 999_999, "description": "x"}, headers=auth_headers(app, ann)
    )
    assert_error(missing, 404, "NOT_FOUND")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"description": "x"}, "productId"),
        ({"productId": 1}, "description"),
        ({"productId": 1, "description": "   "}, "description"),
        ({"productId": 1, "description": "x" * 5001}, "description"),
        ({"productId": "one", "description": "x"}, "productId"),
        ({"productId": 1, "description": "x", "status": "closed"}, "status"),
    ],
)
async def test_create_is_validated(
    app: FastAPI, client: httpx.AsyncClient, body: dict[str, object], field: str
) -> None:
    ann = await create_user(app)
    response = await client.post("/api/claims", json=body, headers=auth_headers(app, ann))
    assert field in assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]


async def test_one_active_claim_per_product(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann = await create_user(app)
    headers = auth_headers(app, ann)
    for status in ("open", "in_progress", "resolved"):
        product = await create_product(app, ann)
        await create_claim(app, product, status=status)
        response = await client.post(
            "/api/claims", json={"productId": product.id, "description": "x"}, headers=headers
        )
        assert_error(response, 409, "CLAIM_ALREADY_ACTIVE")
    # Once its claims are closed, a product can get a new claim.
    product = await create_product(app, ann)
    await create_claim(app, product, status="closed")
    again = await client.post(
        "/api/claims", json={"productId": product.id, "description": "Again"}, headers=headers
    )
    assert again.status_code == 201
    second = await client.post(
        "/api/claims", json={"productId": product.id, "description": "x"}, headers=headers
    )
    assert_error(second, 409, "CLAIM_ALREADY_ACTIVE")


async def test_two_concurrent_creates_give_one_claim(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann = await create_user(app)
    product = await create_product(app, ann)
    headers = auth_headers(app, ann)
    body = {"productId": product.id, "description": "Broken"}

    responses = await asyncio.gather(
        *(client.post("/api/claims", json=body, headers=headers) for _ in range(2))
    )

    assert sorted(response.status_code for response in responses) == [201, 409]
    conflict = next(response for response in responses if response.status_code == 409)
    assert_error(conflict, 409, "CLAIM_ALREADY_ACTIVE")
    assert len((await client.get("/api/claims", headers=headers)).json()) == 1


async def test_list_shows_the_callers_claims_as_customer_and_supplier(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    await create_message(app, cast.claim, cast.customer)
    await create_message(app, cast.claim, cast.supplier)
    other = await create_claim(app, await create_product(app, cast.outsider))

    for user in (cast.customer, cast.supplier):
        [item] = (await client.get("/api/claims", headers=auth_headers(app, user))).json()
        assert item["id"] == cast.claim.id and item["messageCount"] == 2
        assert item["customerEmail"] == cast.customer.email
    # An admin's own list holds only the claims they take part in; the admin list holds all.
    assert (await client.get("/api/claims", headers=auth_headers(app, cast.admin))).json() == []
    admin_list = await client.get("/api/admin/claims", headers=auth_headers(app, cast.admin))
    assert [item["id"] for item in admin_list.json()["data"]] == [other.id, cast.claim.id]
    assert admin_list.json()["meta"]["total"] == 2
    assert [
        c["id"] for c in (await client.get("/api/claims", headers=auth_headers(app, cast.outsider))).json()
    ] == [other.id]
    assert_error(
        await client.get("/api/admin/claims", headers=auth_headers(app, cast.supplier)), 403, "FORBIDDEN"
    )


async def test_list_newest_first_with_filters_and_pages(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann = await create_user(app)
    claims = []
    for number, status in enumerate(["open", "resolved", "open", "closed"]):
        product = await create_product(app, ann, name=f"Product {number}")
        with frozen_time(NOW + timedelta(minutes=number // 2)):  # two pairs with equal times: ties by id
            claims.append(await create_claim(app, product, status=status))
    headers = auth_headers(app, ann)
    ids = [claim.id for claim in claims]

    everything = (await client.get("/api/claims", headers=headers)).json()
    assert [item["id"] for item in everything] == [ids[3], ids[2], ids[1], ids[0]]
    only_open = (await client.get("/api/claims?status=open", headers=headers)).json()
    assert [item["id"] for item in only_open] == [ids[2], ids[0]]
    by_product = (await client.get(f"/api/claims?productId={claims[1].product_id}", headers=headers)).json()
    assert [item["id"] for item in by_product] == [ids[1]]
    page = (await client.get("/api/claims?page=2&limit=3", headers=headers)).json()
    assert [item["id"] for item in page["data"]] == [ids[0]]
    assert page["meta"] == {
        "current_page": 2,
        "per_page": 3,
        "total": 4,
        "last_page": 2,
        "from": 4,
        "to": 4,
        "next_cursor": None,
    }
    assert page["links"]["prev"] == "/api/claims?page=1&limit=3"
    filtered = (await client.get("/api/claims?status=open&limit=1", headers=headers)).json()
    assert (
        filtered["meta"]["total"] == 2
        and filtered["links"]["next"] == "/api/claims?status=open&page=2&limit=1"
    )


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("status=pending", "VALIDATION_FAILED"),
        ("productId=abc", "VALIDATION_FAILED"),
        ("page=0", "VALIDATION_INVALID_PAGE"),
        ("limit=101", "VALIDATION_LIMIT_EXCEEDED"),
    ],
)
async def test_list_query_is_validated(
    app: FastAPI, client: httpx.AsyncClient, query: str, code: str
) -> None:
    admin = await create_admin(app)
    for path in ("/api/claims", "/api/admin/claims"):
        assert_error(await client.get(f"{path}?{query}", headers=auth_headers(app, admin)), 400, code)


async def test_detail_lists_messages_with_integer_ids(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    first = await create_message(app, cast.claim, cast.customer, "Hello")
    second = await create_message(app, cast.claim, cast.supplier, "Hi")

    detail = (await client.get(f"/api/claims/{cast.claim.id}", headers=auth_headers(app, cast.admin))).json()

    assert detail["supplierId"] == cast.supplier.id
    assert [(m["id"], m["senderId"], m["message"]) for m in detail["messages"]] == [
        (first.id, cast.customer.id, "Hello"),
        (second.id, cast.supplier.id, "Hi"),
    ]
    assert all(m["createdAt"].endswith("+00:00") for m in detail["messages"])


async def test_supplier_assignment(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    new_supplier = await create_supplier(app)
    admin_headers = auth_headers(app, cast.admin)
    url = f"/api/claims/{cast.claim.id}/supplier"
    # The supplier's list is cached before the change: the change must show on the very next request.
    assert len((await client.get("/api/claims", headers=auth_headers(app, new_supplier))).json()) == 0

    response = await client.put(url, json={"supplierId": new_supplier.id}, headers=admin_headers)

    assert response.status_code == 200, response.text
    assert response.json()["supplierId"] == new_supplier.id
    assert len((await client.get("/api/claims", headers=auth_headers(app, new_supplier))).json()) == 1
    assert (await client.get("/api/claims", headers=auth_headers(app, cast.supplier))).json() == []
    assert_error(
        await client.get(f"/api/claims/{cast.claim.id}", headers=auth_headers(app, cast.supplier)),
        404,
        "NOT_FOUND",
    )

    # An admin may be assigned (the hierarchy gives admins ROLE_SUPPLIER); null unassigns.
    other_admin = await create_admin(app)
    assert (
        await client.put(url, json={"supplierId": other_admin.id}, headers=admin_headers)
    ).status_code == 200
    unassigned = await client.put(url, json={"supplierId": None}, headers=admin_headers)
    assert unassigned.status_code == 200 and unassigned.json()["supplierId"] is None


@pytest.mark.parametrize("who", ["plain user", "nobody", "the customer", "missing field", "not a number"])
async def test_supplier_must_be_a_supplier(app: FastAPI, client: httpx.AsyncClient, who: str) -> None:
    cast = await claim_cast(app)
    body: dict[str, object] = {
        "plain user": {"supplierId": cast.outsider.id},
        "nobody": {"supplierId": 999_999},
        "the customer": {"supplierId": cast.customer.id},
        "missing field": {},
        "not a number": {"supplierId": "sam"},
    }[who]
    if who == "the customer":
        # Even a customer who is a supplier cannot supply their own claim.
        cast = await claim_cast(app, roles=["ROLE_SUPPLIER"])
        body = {"supplierId": cast.customer.id}
    response = await client.put(
        f"/api/claims/{cast.claim.id}/supplier", json=body, headers=auth_headers(app, cast.admin)
    )
    error = assert_error(response, 400, "VALIDATION_FAILED")
    assert "supplierId" in error["details"]["fields"]


async def test_only_admins_assign_suppliers(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    url = f"/api/claims/{cast.claim.id}/supplier"
    for user in (cast.customer, cast.supplier):
        response = await client.put(
            url, json={"supplierId": cast.other_supplier.id}, headers=auth_headers(app, user)
        )
        assert_error(response, 403, "FORBIDDEN")
    for user in (cast.outsider, cast.other_supplier):
        response = await client.put(
            url, json={"supplierId": cast.other_supplier.id}, headers=auth_headers(app, user)
        )
        assert_error(response, 404, "NOT_FOUND")


async def test_the_database_index_conflict_is_a_409_and_the_transaction_goes_on(app: FastAPI) -> None:
    """Two transactions insert an active claim for one product; the second waits for the first to commit,
    then its insert fails on the unique index: 409 CLAIM_ALREADY_ACTIVE, and its transaction is still
    usable (the savepoint rolled back only the insert)."""
    ann = await create_user(app)
    product = await create_product(app, ann)

    def new_claim() -> Claim:
        return Claim(product_id=product.id, customer_id=ann.id, status="open", description="x")

    async with app.state.sessionmaker() as first, app.state.sessionmaker() as second:
        await ClaimRepository(first).add(new_claim())
        losing = asyncio.create_task(ClaimRepository(second).add(new_claim()))
        await first.commit()
        with pytest.raises(Conflict) as raised:
            await losing
        assert raised.value.code == "CLAIM_ALREADY_ACTIVE"
        assert await second.scalar(select(func.count(Claim.id))) == 1
        await second.rollback()
