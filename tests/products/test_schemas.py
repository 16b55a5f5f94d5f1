"""Products and receipts on the wire (app.products.schemas): what a product's fields accept (text, days, the
price, the warranty's length), every problem named in one answer, and how a product is shown."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error
from tests.products.support import MINIMAL

NOW = datetime(2026, 3, 10, 12, 30, tzinfo=UTC)


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
