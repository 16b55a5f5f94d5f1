"""The rules of a product's warranty that span fields (app.products.service): given by a number of months or
by its end day (contract 15.6), exactly one of the two, that day within the purchase day's reach, and
switching between them by update."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from app.errors import ValidationFailed
from app.models import User
from app.products import service
from app.products.schemas import ProductCreate
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error
from tests.products.support import MINIMAL, create_drill

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


async def _owner(app: FastAPI) -> tuple[User, dict[str, str]]:
    user = await create_user(app)
    return user, auth_headers(app, user)


async def test_create_with_an_end_day(app: FastAPI, client: httpx.AsyncClient) -> None:
    _, headers = await _owner(app)

    response = await create_drill(client, headers, NOW, warrantyEndsOn="2026-07-01")

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["warrantyPeriodMonths"] is None
    assert body["warrantyEndsOn"] == "2026-07-01"
    assert body["warrantyExpiresAt"] == "2026-07-01T00:00:00+00:00"
    assert body["warrantyStatus"] == "expiring_soon"  # 16 days from NOW
    with frozen_time(NOW):
        detail = (await client.get(f"/api/products/{body['id']}", headers=headers)).json()
    assert {key: detail[key] for key in body} == body


@pytest.mark.parametrize(
    ("fields", "problems"),
    [
        (
            {"warrantyPeriodMonths": 12, "warrantyEndsOn": "2027-01-01"},
            {"warrantyPeriodMonths", "warrantyEndsOn"},
        ),
        ({}, {"warrantyPeriodMonths"}),
        ({"warrantyEndsOn": None}, {"warrantyPeriodMonths"}),
        ({"warrantyEndsOn": "2027-02-30"}, {"warrantyEndsOn"}),
        ({"warrantyEndsOn": "2027/01/01"}, {"warrantyEndsOn"}),
        ({"warrantyEndsOn": "2027-01-01T00:00:00"}, {"warrantyEndsOn"}),
        ({"warrantyEndsOn": 20270101}, {"warrantyEndsOn"}),
        ({"warrantyEndsOn": "2025-02-09"}, {"warrantyEndsOn"}),  # the day before the purchase
        ({"warrantyEndsOn": "2075-02-11"}, {"warrantyEndsOn"}),  # 600 months and a day after it
    ],
)
async def test_create_refuses_both_neither_or_a_bad_end_day(
    app: FastAPI, client: httpx.AsyncClient, fields: dict[str, Any], problems: set[str]
) -> None:
    _, headers = await _owner(app)

    response = await create_drill(client, headers, NOW, **fields)

    assert set(assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]) == problems
    with frozen_time(NOW):
        assert (await client.get("/api/products", headers=headers)).json() == []


@pytest.mark.parametrize("ends_on", ["2025-02-10", "2075-02-10"])
async def test_the_end_day_bounds_are_the_purchase_day_and_600_months(
    app: FastAPI, client: httpx.AsyncClient, ends_on: str
) -> None:
    _, headers = await _owner(app)

    response = await create_drill(client, headers, NOW, warrantyEndsOn=ends_on)

    assert response.status_code == 201, response.text
    assert response.json()["warrantyExpiresAt"] == f"{ends_on}T00:00:00+00:00"


async def test_an_update_switches_between_months_and_end_day(app: FastAPI, client: httpx.AsyncClient) -> None:
    _, headers = await _owner(app)
    product = (await create_drill(client, headers, NOW, warrantyPeriodMonths=24)).json()
    path = f"/api/products/{product['id']}"

    with frozen_time(NOW):
        to_day = await client.patch(path, json={"warrantyEndsOn": "2030-12-31"}, headers=headers)
        # The purchase day moves; an end given directly does not move with it.
        moved = await client.put(path, json={"purchaseDate": "2025-01-01"}, headers=headers)
        to_months = await client.patch(path, json={"warrantyPeriodMonths": 6}, headers=headers)

    assert to_day.status_code == 200, to_day.text
    assert (to_day.json()["warrantyPeriodMonths"], to_day.json()["warrantyEndsOn"]) == (None, "2030-12-31")
    assert to_day.json()["warrantyExpiresAt"] == "2030-12-31T00:00:00+00:00"
    assert to_day.json()["warrantyStatus"] == "active"
    assert moved.json()["warrantyExpiresAt"] == "2030-12-31T00:00:00+00:00"
    assert moved.json()["warrantyEndsOn"] == "2030-12-31"
    assert (to_months.json()["warrantyPeriodMonths"], to_months.json()["warrantyEndsOn"]) == (6, None)
    assert to_months.json()["warrantyExpiresAt"] == "2025-07-01T00:00:00+00:00"
    assert to_months.json()["warrantyStatus"] == "expired"


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"warrantyPeriodMonths": 12, "warrantyEndsOn": "2027-01-01"}, "warrantyEndsOn"),
        ({"warrantyEndsOn": None}, "warrantyEndsOn"),
        ({"warrantyPeriodMonths": None}, "warrantyPeriodMonths"),
        ({"warrantyPeriodMonths": None, "warrantyEndsOn": None}, "warrantyPeriodMonths"),
        ({"purchaseDate": "2026-06-01"}, "warrantyEndsOn"),  # now after the end day
        ({"warrantyEndsOn": "2024-12-31"}, "warrantyEndsOn"),
    ],
)
async def test_an_update_refuses_what_create_refuses_and_changes_nothing(
    app: FastAPI, client: httpx.AsyncClient, fields: dict[str, Any], problem: str
) -> None:
    _, headers = await _owner(app)
    product = (await create_drill(client, headers, NOW, warrantyEndsOn="2026-05-01")).json()
    path = f"/api/products/{product['id']}"

    with frozen_time(NOW):
        response = await client.patch(path, json=fields, headers=headers)
        after = (await client.get(path, headers=headers)).json()

    assert problem in assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]
    assert {key: after[key] for key in product} == product


async def test_null_for_the_other_one_is_not_both(app: FastAPI, client: httpx.AsyncClient) -> None:
    _, headers = await _owner(app)

    response = await create_drill(
        client, headers, NOW, warrantyEndsOn="2027-01-01", warrantyPeriodMonths=None
    )

    assert response.status_code == 201, response.text
    assert response.json()["warrantyPeriodMonths"] is None


def test_the_fields_of_a_new_product_name_the_one_warranty_end_given() -> None:
    by_months = service.create_fields(ProductCreate.model_validate(MINIMAL | {"store": " Shop "}))
    assert by_months == {
        "name": "Espresso machine",
        "brand": "Gaggia",
        "category": "Kitchen",
        "purchase_date": date(2026, 1, 15),
        "warranty_period_months": 24,
        "warranty_ends_on": None,
        "store": "Shop",
        "price": None,
        "serial_number": None,
        "household_id": None,
    }
    shared = service.create_fields(ProductCreate.model_validate(MINIMAL | {"householdId": 3}))
    assert shared["household_id"] == 3
    by_day = {**MINIMAL, "warrantyPeriodMonths": None, "warrantyEndsOn": "2026-01-15"}
    fields = service.create_fields(ProductCreate.model_validate(by_day))
    assert (fields["warranty_period_months"], fields["warranty_ends_on"]) == (None, date(2026, 1, 15))

    with pytest.raises(ValidationFailed) as both:
        service.create_fields(ProductCreate.model_validate(MINIMAL | {"warrantyEndsOn": "2027-01-15"}))
    assert set((both.value.details or {})["fields"]) == {"warrantyPeriodMonths", "warrantyEndsOn"}
    for too_early_or_late in ("2026-01-14", "2076-01-16"):
        with pytest.raises(ValidationFailed) as refused:
            service.create_fields(
                ProductCreate.model_validate(by_day | {"warrantyEndsOn": too_early_or_late})
            )
        assert set((refused.value.details or {})["fields"]) == {"warrantyEndsOn"}
