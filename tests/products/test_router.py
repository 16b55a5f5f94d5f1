from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.core.clock import frozen_time
from app.models import Claim, Message, Product, Receipt
from tests.factories.claims import create_claim, create_message
from tests.factories.products import create_product, create_receipt
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error

NOW = datetime(2026, 3, 10, 12, 30, tzinfo=UTC)
MINIMAL = {
    "name": "Espresso machine",
    "brand": "Gaggia",
    "category": "Kitchen",
    "purchaseDate": "2026-01-15",
    "warrantyPeriodMonths": 24,
}
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


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("name", ""),
        ("name", "   "),
        ("name", "x" * 256),
        ("name", 12),
        ("brand", "x" * 101),
        ("category", None),
        ("store", "x" * 101),
        ("store", ""),
        ("serialNumber", "x" * 101),
        ("purchaseDate", "2026-02-30"),
        ("purchaseDate", "15/01/2026"),
        ("purchaseDate", "2026-01-15T00:00:00"),
        ("purchaseDate", 20260115),
        ("purchaseDate", "2026-03-11"),  # tomorrow
        ("purchaseDate", "1899-12-31"),
        ("warrantyPeriodMonths", -1),
        ("warrantyPeriodMonths", 601),
        ("warrantyPeriodMonths", 1.5),
        ("warrantyPeriodMonths", 12.0),
        ("warrantyPeriodMonths", "12"),
        ("warrantyPeriodMonths", True),
        ("price", -0.01),
        ("price", 1.001),
        ("price", "10.00"),
        ("price", True),
        ("price", 1e12),
        ("unknown", "x"),
    ],
)
async def test_create_refuses_invalid_fields(
    app: FastAPI, client: httpx.AsyncClient, field: str, value: Any
) -> None:
    user = await create_user(app)
    headers = auth_headers(app, user)  # tokens are checked against the real clock too
    with frozen_time(NOW):
        response = await client.post("/api/products", json=MINIMAL | {field: value}, headers=headers)

    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert field in body["details"]["fields"], body


@pytest.mark.parametrize("missing", ["name", "brand", "category", "purchaseDate", "warrantyPeriodMonths"])
async def test_create_requires_the_five_fields(app: FastAPI, client: httpx.AsyncClient, missing: str) -> None:
    user = await create_user(app)
    payload = {key: value for key, value in MINIMAL.items() if key != missing}

    response = await client.post("/api/products", json=payload, headers=auth_headers(app, user))

    assert missing in assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]


WARRANTY_LENGTH_REQUIRED = "Field required (or give warrantyEndsOn)"


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({}, {field: "Field required" for field in ("name", "brand", "category", "purchaseDate")}),
        ({"name": "Kettle", "brand": "", "category": "Kitchen"}, {"brand": None, "purchaseDate": None}),
        ({**MINIMAL, "warrantyPeriodMonths": None, "price": -1}, {"price": None}),
        (
            {"warrantyEndsOn": None, "name": "x" * 300, "category": "Kitchen", "purchaseDate": "2026-01-15"},
            {"name": "Value error, at most 255 characters", "brand": "Field required"},
        ),
    ],
)
async def test_a_missing_warranty_length_is_named_with_every_other_problem(
    app: FastAPI, client: httpx.AsyncClient, payload: dict[str, Any], expected: dict[str, str | None]
) -> None:
    """One answer names everything to fix: the warranty length beside the other missing fields, not
    on a second try once they are given."""
    user = await create_user(app)
    response = await client.post("/api/products", json=payload, headers=auth_headers(app, user))

    fields = assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]
    assert fields["warrantyPeriodMonths"] == WARRANTY_LENGTH_REQUIRED
    assert set(fields) == {*expected, "warrantyPeriodMonths"}
    assert all(fields[name] == problem for name, problem in expected.items() if problem is not None)


async def test_a_warranty_end_day_or_an_invalid_length_is_not_a_missing_one(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    headers = auth_headers(app, await create_user(app))
    without = {key: value for key, value in MINIMAL.items() if key != "warrantyPeriodMonths"}
    by_day = await client.post(
        "/api/products", json={**without, "warrantyEndsOn": "2027-01-15", "brand": ""}, headers=headers
    )
    assert set(assert_error(by_day, 400, "VALIDATION_FAILED")["details"]["fields"]) == {"brand"}
    text = {**MINIMAL, "warrantyPeriodMonths": "12"}
    fields = assert_error(
        await client.post("/api/products", json=text, headers=headers), 400, "VALIDATION_FAILED"
    )["details"]["fields"]
    assert set(fields) == {"warrantyPeriodMonths"}
    assert fields["warrantyPeriodMonths"] != WARRANTY_LENGTH_REQUIRED
    created = (await client.post("/api/products", json=MINIMAL, headers=headers)).json()
    update = await client.patch(f"/api/products/{created['id']}", json={"brand": ""}, headers=headers)
    assert set(assert_error(update, 400, "VALIDATION_FAILED")["details"]["fields"]) == {"brand"}


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"purchaseDate": "2026-03-10", "warrantyPeriodMonths": 0}, "2026-03-10"),  # today, 0 months
        ({"purchaseDate": "1900-01-01", "warrantyPeriodMonths": 600}, "1950-01-01"),
        ({"price": 0, "store": None, "serialNumber": None}, None),
        ({"price": 10.5}, None),
        ({"price": 9999999999.99}, None),
    ],
)
async def test_create_accepts_the_bounds(
    app: FastAPI, client: httpx.AsyncClient, payload: dict[str, Any], expected: str | None
) -> None:
    user = await create_user(app)
    headers = auth_headers(app, user)  # tokens are checked against the real clock too
    with frozen_time(NOW):
        response = await client.post("/api/products", json=MINIMAL | payload, headers=headers)

    assert response.status_code == 201, response.text
    if expected:
        assert response.json()["warrantyExpiresAt"] == f"{expected}T00:00:00+00:00"
    if "price" in payload:
        assert response.json()["price"] == payload["price"]


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


@pytest.mark.parametrize("path", ["/api/products/999999", "/api/products/0", "/api/products/99999999999"])
async def test_unknown_product_is_404(app: FastAPI, client: httpx.AsyncClient, path: str) -> None:
    user = await create_user(app)

    assert_error(await client.get(path, headers=auth_headers(app, user)), 404, "NOT_FOUND")


async def test_a_non_numeric_id_is_400(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)

    assert_error(
        await client.get("/api/products/abc", headers=auth_headers(app, user)), 400, "VALIDATION_FAILED"
    )


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


@pytest.mark.parametrize(
    ("field", "value"),
    [("purchaseDate", "2999-01-01"), ("warrantyPeriodMonths", 1.5), ("price", 0.001), ("owner", 3)],
)
async def test_update_validates_like_create(
    app: FastAPI, client: httpx.AsyncClient, field: str, value: Any
) -> None:
    user = await create_user(app)
    product = await create_product(app, user)

    response = await client.patch(
        f"/api/products/{product.id}", json={field: value}, headers=auth_headers(app, user)
    )

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
