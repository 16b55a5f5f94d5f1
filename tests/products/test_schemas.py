"""Products and receipts on the wire (app.products.schemas): what a product's fields accept (text, days, the
price, the warranty's length), every problem named in one answer, and how a product is shown."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic import ValidationError

from app.core.clock import frozen_time
from app.products.schemas import ProductCreate, ProductOut, ProductUpdate
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


def _row(**fields: Any) -> SimpleNamespace:
    """A product as its list columns hold it."""
    values: dict[str, Any] = {
        "id": 7,
        "owner_id": 42,
        "household_id": 3,
        "name": "Kettle",
        "brand": "Bosch",
        "category": "Kitchen",
        "store": None,
        "purchase_date": date(2026, 1, 15),
        "warranty_period_months": 24,
        "warranty_ends_on": None,
        "price": Decimal("10.50"),
        "serial_number": None,
        "warranty_voided_at": None,
        "warranty_void_reason": None,
        "created_at": NOW,
        "updated_at": NOW,
        "warranty_expires_on": date(2028, 1, 15),
    }
    return SimpleNamespace(**(values | fields))


@pytest.mark.parametrize(
    ("today", "fields", "status"),
    [
        (date(2027, 12, 16), {}, "active"),  # 30 days left: just outside a window of 29
        (date(2027, 12, 17), {}, "expiring_soon"),
        (date(2028, 1, 15), {}, "expiring_soon"),  # the last day is still covered
        (date(2028, 1, 16), {}, "expired"),
        (date(2026, 6, 1), {"warranty_voided_at": NOW, "warranty_void_reason": "Opened"}, "void"),
    ],
)
def test_a_product_is_shown_with_its_status_on_the_day(
    today: date, fields: dict[str, Any], status: str
) -> None:
    shown = ProductOut.of(
        _row(**fields), owner_name="Ann", has_active_claim=True, today=today, expiring_soon_days=29
    )
    body = shown.model_dump(mode="json", by_alias=True)
    assert body["warrantyStatus"] == status
    assert (body["purchaseDate"], body["warrantyExpiresAt"]) == (
        "2026-01-15T00:00:00+00:00",
        "2028-01-15T00:00:00+00:00",
    )
    assert (body["price"], body["hasActiveClaim"], body["warrantyExtensions"]) == (10.5, True, [])
    assert (body["householdId"], body["owner"]) == (3, {"id": 42, "name": "Ann"})


def test_a_price_is_a_json_number_of_two_decimals_at_most_and_kept_as_sent() -> None:
    fields = {"price": 10.5, "name": "  Kettle  "}
    created = ProductCreate.model_validate(MINIMAL | fields)
    assert (created.price, created.name) == (Decimal("10.50"), "Kettle")
    assert ProductCreate.model_validate(MINIMAL | {"price": 0}).price == Decimal("0.00")
    for refused in (10.555, -1, "10", True, float("inf")):
        with pytest.raises(ValidationError):
            ProductCreate.model_validate(MINIMAL | {"price": refused})


def test_an_update_holds_only_the_fields_sent_and_a_null_for_a_required_one_is_refused() -> None:
    assert ProductUpdate.model_validate({}).changes() == {}
    assert ProductUpdate.model_validate({"price": None, "store": " Shop "}).changes() == {
        "price": None,
        "store": "Shop",
    }
    assert ProductUpdate.model_validate({"warrantyEndsOn": "2027-06-30"}).changes() == {
        "warranty_ends_on": date(2027, 6, 30)
    }
    for required in ("name", "brand", "category", "purchaseDate"):
        with pytest.raises(ValidationError):
            ProductUpdate.model_validate({required: None})
