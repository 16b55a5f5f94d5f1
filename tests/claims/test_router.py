"""Opening claims, the lists and the detail."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from tests.factories.claims import claim_cast, create_claim, create_message
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_user
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
        "sla": None,  # unrouted: no deadlines
        "messages": [],
        "hasMoreMessages": False,
        "outcome": None,
        "outcomeNote": None,
        "warrantyExtension": None,
        "rma": None,
        "rating": None,
        "createdAt": NOW.isoformat(),
        "updatedAt": NOW.isoformat(),
    }


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
