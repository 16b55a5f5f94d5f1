"""Expiry by calendar months and the three statuses, through the API and the pure functions."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from app.products.warranty import expiry_date, warranty_status
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_user

TODAY = date(2026, 6, 15)
NOON = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("purchased", "months", "expires"),
    [
        (date(2024, 1, 31), 1, date(2024, 2, 29)),  # leap February
        (date(2023, 1, 31), 1, date(2023, 2, 28)),
        (date(2024, 2, 29), 12, date(2025, 2, 28)),
        (date(2024, 2, 29), 48, date(2028, 2, 29)),
        (date(2024, 3, 31), 1, date(2024, 4, 30)),
        (date(2024, 1, 31), 2, date(2024, 3, 31)),  # one step, not Feb 29 then Mar 29
        (date(2024, 12, 15), 1, date(2025, 1, 15)),
        (date(2024, 5, 17), 0, date(2024, 5, 17)),
        (date(1900, 1, 1), 600, date(1950, 1, 1)),
    ],
)
def test_expiry_date_adds_calendar_months_in_one_step(purchased: date, months: int, expires: date) -> None:
    assert expiry_date(purchased, months) == expires


@pytest.mark.parametrize(
    ("purchased", "months", "expires"),
    [("2024-01-31", 1, "2024-02-29"), ("2024-02-29", 12, "2025-02-28"), ("2026-06-15", 0, "2026-06-15")],
)
async def test_the_api_shows_month_end_expiry(
    app: FastAPI, client: httpx.AsyncClient, purchased: str, months: int, expires: str
) -> None:
    user = await create_user(app)
    payload = {
        "name": "Kettle",
        "brand": "Bosch",
        "category": "Kitchen",
        "purchaseDate": purchased,
        "warrantyPeriodMonths": months,
    }

    headers = auth_headers(app, user)
    with frozen_time(NOON):
        response = await client.post("/api/products", json=payload, headers=headers)

    assert response.status_code == 201, response.text
    assert response.json()["warrantyExpiresAt"] == f"{expires}T00:00:00+00:00"


@pytest.mark.parametrize(
    ("days_left", "status"),
    [
        (-1, "expired"),
        (0, "expiring_soon"),  # the expiry day itself is still covered
        (1, "expiring_soon"),
        (30, "expiring_soon"),  # exactly expiring_soon_days away
        (31, "active"),
    ],
)
def test_status_boundaries(days_left: int, status: str) -> None:
    assert warranty_status(TODAY + timedelta(days=days_left), TODAY, 30) == status


@pytest.mark.parametrize(
    ("expires", "status"),
    [
        (date(2026, 6, 14), "expired"),
        (date(2026, 6, 15), "expiring_soon"),
        (date(2026, 7, 15), "expiring_soon"),
        (date(2026, 7, 16), "active"),
    ],
)
async def test_status_is_computed_at_read_time(
    app: FastAPI, client: httpx.AsyncClient, expires: date, status: str
) -> None:
    user = await create_user(app)
    # 0 months: the purchase day is the expiry day.
    product = await create_product(app, user, purchase_date=expires, warranty_period_months=0)
    headers = auth_headers(app, user)

    with frozen_time(NOON):
        detail = await client.get(f"/api/products/{product.id}", headers=headers)
        listed = await client.get("/api/products", headers=headers)
        filtered = await client.get(f"/api/products?warrantyStatus={status}", headers=headers)
    with frozen_time(NOON + timedelta(days=120)):
        later = await client.get(f"/api/products/{product.id}", headers=headers)

    assert detail.json()["warrantyStatus"] == status
    assert listed.json()[0]["warrantyStatus"] == status
    assert [item["id"] for item in filtered.json()] == [product.id]
    assert later.json()["warrantyStatus"] == "expired"


@pytest.mark.settings(expiring_soon_days=7)
async def test_expiring_soon_days_is_a_setting(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    seven = await create_product(app, user, purchase_date=date(2026, 6, 22), warranty_period_months=0)
    eight = await create_product(app, user, purchase_date=date(2026, 6, 23), warranty_period_months=0)
    headers = auth_headers(app, user)

    with frozen_time(NOON):
        soon = await client.get("/api/products?warrantyStatus=expiring_soon", headers=headers)
        active = await client.get("/api/products?warrantyStatus=active", headers=headers)

    assert [item["id"] for item in soon.json()] == [seven.id]
    assert [item["id"] for item in active.json()] == [eight.id]
