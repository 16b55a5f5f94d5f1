"""One product (app.products.routes.products, docs/api.md §5): create, read with its receipts and claims,
change (PUT and PATCH alike) and delete with everything attached; an admin's edit leaves it its owner's."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.core.clock import frozen_time
from app.models import Claim, Message, Product, Receipt
from tests.factories.claims import create_claim, create_message
from tests.factories.products import create_product, create_receipt
from tests.factories.users import auth_headers, create_admin, create_user
from tests.helpers import assert_error
from tests.products.support import MINIMAL

NOW = datetime(2026, 3, 10, 12, 30, tzinfo=UTC)
PRODUCT_FIELDS = {
    "id",
    "name",
    "brand",
    "category",
    "store",
    "purchaseDate",
    "warrantyPeriodMonths",
    "warrantyEndsOn",
    "price",
    "serialNumber",
    "warrantyStatus",
    "warrantyExpiresAt",
    "warrantyVoidedAt",
    "warrantyVoidReason",
    "warrantyExtensions",
    "hasActiveClaim",
    "createdAt",
    "updatedAt",
    "householdId",  # contract 17.3: null for a product shared with no household
    "owner",
}


async def test_create_with_the_minimal_fields_answers_the_full_product(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app)
    headers = auth_headers(app, user)  # tokens are checked against the real clock too
    with frozen_time(NOW):
        response = await client.post("/api/products", json=MINIMAL, headers=headers)

    assert response.status_code == 201, response.text
    body = response.json()
    assert response.headers["Location"] == f"/api/products/{body['id']}"
    assert body == {
        "id": body["id"],
        "name": "Espresso machine",
        "brand": "Gaggia",
        "category": "Kitchen",
        "store": None,
        "purchaseDate": "2026-01-15T00:00:00+00:00",
        "warrantyPeriodMonths": 24,
        "warrantyEndsOn": None,
        "price": None,
        "serialNumber": None,
        "warrantyStatus": "active",
        "warrantyExpiresAt": "2028-01-15T00:00:00+00:00",
        "warrantyVoidedAt": None,
        "warrantyVoidReason": None,
        "warrantyExtensions": [],
        "hasActiveClaim": False,
        "createdAt": "2026-03-10T12:30:00+00:00",
        "updatedAt": "2026-03-10T12:30:00+00:00",
        "householdId": None,
        "owner": {"id": user.id, "name": user.name},
    }


async def test_create_with_every_field_trims_strings_and_keeps_the_price_a_number(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app)
    payload = MINIMAL | {
        "name": "  Espresso machine  ",
        "store": " Coffee & Co ",
        "price": 499.9,
        "serialNumber": "SN-1",
    }

    response = await client.post("/api/products", json=payload, headers=auth_headers(app, user))

    assert response.status_code == 201, response.text
    body = response.json()
    assert (body["name"], body["store"], body["price"], body["serialNumber"]) == (
        "Espresso machine",
        "Coffee & Co",
        499.9,
        "SN-1",
    )
    async with app.state.sessionmaker() as session:
        stored = await session.get(Product, body["id"])
    assert stored is not None
    assert stored.owner_id == user.id
    assert stored.price == Decimal("499.90")
    assert stored.warranty_expires_on == date(2028, 1, 15)


async def test_malformed_json_and_no_token(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    headers = auth_headers(app, user) | {"Content-Type": "application/json"}

    assert_error(await client.post("/api/products", content=b"{", headers=headers), 400, "MALFORMED_JSON")
    assert_error(await client.post("/api/products", json=MINIMAL), 401, "AUTH_REQUIRED")
    assert_error(await client.get("/api/products/1"), 401, "AUTH_REQUIRED")


async def test_get_answers_the_product_with_its_receipts_and_claims(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app)
    headers = auth_headers(app, user)
    with frozen_time(NOW):
        product = await create_product(
            app, user, store="Coffee & Co", price=Decimal("12.50"), serial_number="A"
        )
        closed = await create_claim(app, product, status="closed", description="First")
        open_claim = await create_claim(app, product, description="Second")
        receipt = await create_receipt(app, product, file_name="invoice.pdf")

        response = await client.get(f"/api/products/{product.id}", headers=headers)

    assert response.status_code == 200
    body = response.json()
    assert set(body) == PRODUCT_FIELDS | {"receipts", "claims"}
    assert body["price"] == 12.5
    assert body["hasActiveClaim"] is True
    assert body["receipts"] == [
        {
            "id": receipt.id,
            "fileName": "invoice.pdf",
            "fileType": "pdf",
            "mimeType": "application/pdf",
            "size": receipt.size,
            "createdAt": "2026-03-10T12:30:00+00:00",
            "url": f"/api/products/{product.id}/receipts/{receipt.id}/file",
        }
    ]
    assert body["claims"] == [
        {
            "id": closed.id,
            "status": "closed",
            "description": "First",
            "createdAt": "2026-03-10T12:30:00+00:00",
        },
        {
            "id": open_claim.id,
            "status": "open",
            "description": "Second",
            "createdAt": "2026-03-10T12:30:00+00:00",
        },
    ]


async def test_has_active_claim_ignores_closed_claims(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    product = await create_product(app, user)
    await create_claim(app, product, status="closed")

    response = await client.get(f"/api/products/{product.id}", headers=auth_headers(app, user))

    assert response.json()["hasActiveClaim"] is False


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
async def test_update_changes_only_the_fields_sent_and_recomputes_the_expiry(
    app: FastAPI, client: httpx.AsyncClient, method: str
) -> None:
    user = await create_user(app)
    with frozen_time(NOW):
        product = await create_product(
            app, user, purchase_date=date(2024, 1, 31), warranty_period_months=24, store="Shop"
        )
    later = datetime(2026, 3, 11, 8, 0, tzinfo=UTC)
    headers = auth_headers(app, user)

    with frozen_time(later):
        response = await client.request(
            method,
            f"/api/products/{product.id}",
            json={"warrantyPeriodMonths": 1, "price": 20, "serialNumber": " X1 "},
            headers=headers,
        )

    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == PRODUCT_FIELDS
    assert body["name"] == product.name and body["store"] == "Shop"
    assert (body["warrantyPeriodMonths"], body["price"], body["serialNumber"]) == (1, 20, "X1")
    assert body["warrantyExpiresAt"] == "2024-02-29T00:00:00+00:00"
    assert body["warrantyStatus"] == "expired"
    assert body["createdAt"] == "2026-03-10T12:30:00+00:00"
    assert body["updatedAt"] == "2026-03-11T08:00:00+00:00"
    async with app.state.sessionmaker() as session:
        stored = await session.get(Product, product.id)
    assert stored is not None and stored.warranty_expires_on == date(2024, 2, 29)


async def test_update_can_clear_optional_fields_but_not_required_ones(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app)
    product = await create_product(app, user, store="Shop", price=Decimal("3.00"))
    headers = auth_headers(app, user)
    path = f"/api/products/{product.id}"

    cleared = await client.patch(path, json={"store": None, "price": None}, headers=headers)
    assert cleared.status_code == 200
    assert (cleared.json()["store"], cleared.json()["price"]) == (None, None)

    for field in ("name", "brand", "category", "purchaseDate", "warrantyPeriodMonths"):
        response = await client.put(path, json={field: None}, headers=headers)
        assert field in assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]


async def test_delete_removes_the_product_its_receipts_claims_messages_and_files(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app)
    product = await create_product(app, user)
    kept = await create_product(app, user, name="Kept")
    receipt = await create_receipt(app, product)
    kept_receipt = await create_receipt(app, kept)
    claim = await create_claim(app, product, status="closed")
    storage = app.state.storage
    attachment_key = await storage.save("attachments", b"%PDF-1.4 attachment", "pdf")
    await create_message(app, claim, user, attachment_key=attachment_key, attachment_name="a.pdf")
    files = [receipt.storage_key, attachment_key]
    assert all(storage.path(key).exists() for key in files)

    response = await client.delete(f"/api/products/{product.id}", headers=auth_headers(app, user))

    assert response.status_code == 204
    assert response.content == b""
    assert not any(storage.path(key).exists() for key in files)
    assert storage.path(kept_receipt.storage_key).exists()
    async with app.state.sessionmaker() as session:
        for model in (Product, Receipt, Claim, Message):
            assert await session.scalar(select(func.count()).select_from(model)) == (
                1 if model in (Product, Receipt) else 0
            )
    again = await client.get(f"/api/products/{product.id}", headers=auth_headers(app, user))
    assert_error(again, 404, "NOT_FOUND")


async def test_a_product_stays_its_owners_when_an_admin_edits_it(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner, admin = await create_user(app), await create_admin(app)
    product = await create_product(app, owner)

    await client.patch(
        f"/api/products/{product.id}", json={"name": "Fixed"}, headers=auth_headers(app, admin)
    )

    listed = await client.get("/api/products", headers=auth_headers(app, owner))
    assert [(item["id"], item["name"]) for item in listed.json()] == [(product.id, "Fixed")]
    admins_own = await client.get("/api/products", headers=auth_headers(app, admin))
    assert admins_own.json() == []
