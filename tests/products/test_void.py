"""Voiding a warranty (contract 15.6): who may, what the product then shows, the `void` list filter
(and the other status filters no longer finding it), unvoid, and the lists' page cache."""

from __future__ import annotations

from datetime import UTC, date, datetime

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from app.models import Product
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
LATER = datetime(2026, 6, 16, 9, 30, tzinfo=UTC)
REASON = "Opened and repaired by a third party."
STATUSES = ("active", "expiring_soon", "expired", "void")


def ids(response: httpx.Response) -> list[int]:
    assert response.status_code == 200, response.text
    body = response.json()
    return [item["id"] for item in (body["data"] if isinstance(body, dict) else body)]


async def _active_product(app: FastAPI) -> tuple[Product, dict[str, str]]:
    owner = await create_user(app)
    # Expires 2027-01-15: active on NOW.
    product = await create_product(app, owner, purchase_date=date(2025, 1, 15), warranty_period_months=24)
    return product, auth_headers(app, owner)


async def test_void_and_unvoid(app: FastAPI, client: httpx.AsyncClient) -> None:
    product, headers = await _active_product(app)
    path = f"/api/products/{product.id}"

    with frozen_time(NOW):
        voided = await client.post(f"{path}/warranty/void", json={"reason": f"  {REASON} "}, headers=headers)
        detail = await client.get(path, headers=headers)
    with frozen_time(LATER):
        unvoided = await client.post(f"{path}/warranty/unvoid", headers=headers)

    assert voided.status_code == 200, voided.text
    body = voided.json()
    assert body["warrantyStatus"] == "void"
    assert body["warrantyVoidReason"] == REASON
    assert body["warrantyVoidedAt"] == "2026-06-15T12:00:00+00:00"
    assert body["warrantyExpiresAt"] == "2027-01-15T00:00:00+00:00"  # the dates stay
    assert {key: detail.json()[key] for key in body} == body
    assert unvoided.status_code == 200, unvoided.text
    assert unvoided.json()["warrantyStatus"] == "active"
    assert (unvoided.json()["warrantyVoidedAt"], unvoided.json()["warrantyVoidReason"]) == (None, None)


async def test_voiding_again_replaces_the_reason_and_keeps_the_time(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    product, headers = await _active_product(app)
    path = f"/api/products/{product.id}/warranty"

    with frozen_time(NOW):
        await client.post(f"{path}/void", json={"reason": "first"}, headers=headers)
    with frozen_time(LATER):
        again = await client.post(f"{path}/void", json={"reason": "second"}, headers=headers)
        twice = await client.post(f"{path}/unvoid", headers=headers)
        unvoided = await client.post(f"{path}/unvoid", headers=headers)

    assert (again.json()["warrantyVoidReason"], again.json()["warrantyVoidedAt"]) == (
        "second",
        "2026-06-15T12:00:00+00:00",
    )
    assert twice.json()["warrantyStatus"] == unvoided.json()["warrantyStatus"] == "active"


async def test_the_status_filters(app: FastAPI, client: httpx.AsyncClient) -> None:
    product, headers = await _active_product(app)
    other = await create_product(app, await create_user(app), purchase_date=date(2025, 1, 15))
    admin = auth_headers(app, await create_admin(app))
    path = f"/api/products/{product.id}/warranty"
    expired = await create_product(
        app, await create_user(app), purchase_date=date(2020, 1, 1), warranty_period_months=1
    )

    with frozen_time(NOW):
        await client.post(f"{path}/void", json={"reason": REASON}, headers=headers)
        await client.post(f"/api/products/{expired.id}/warranty/void", json={"reason": REASON}, headers=admin)
        own = {
            s: ids(await client.get(f"/api/products?warrantyStatus={s}", headers=headers)) for s in STATUSES
        }
        everyone = {
            s: ids(await client.get(f"/api/admin/products?warrantyStatus={s}", headers=admin))
            for s in STATUSES
        }
        paged = (await client.get("/api/admin/products?warrantyStatus=void&limit=1", headers=admin)).json()
        totals = {
            s: (await client.get(f"/api/admin/products?warrantyStatus={s}&limit=1", headers=admin)).json()
            for s in STATUSES
        }

    assert own == {"active": [], "expiring_soon": [], "expired": [], "void": [product.id]}
    assert everyone == {
        "active": [other.id],
        "expiring_soon": [],
        "expired": [],
        "void": [expired.id, product.id],  # newest first
    }
    assert paged["meta"]["total"] == 2 and paged["meta"]["next_cursor"]
    assert {s: page["meta"]["total"] for s, page in totals.items()} == {
        "active": 1,
        "expiring_soon": 0,
        "expired": 0,
        "void": 2,
    }


async def test_owner_and_admin_may_void_nobody_else(app: FastAPI, client: httpx.AsyncClient) -> None:
    product, headers = await _active_product(app)
    path = f"/api/products/{product.id}/warranty"
    supplier = auth_headers(app, await create_supplier(app))
    stranger = auth_headers(app, await create_user(app))
    admin = auth_headers(app, await create_admin(app))

    for who in (supplier, stranger):
        assert_error(
            await client.post(f"{path}/void", json={"reason": REASON}, headers=who), 404, "NOT_FOUND"
        )
        assert_error(await client.post(f"{path}/unvoid", headers=who), 404, "NOT_FOUND")
    assert_error(await client.post(f"{path}/void", json={"reason": REASON}), 401, "AUTH_REQUIRED")
    assert_error(
        await client.post("/api/products/999999/warranty/void", json={"reason": REASON}, headers=admin),
        404,
        "NOT_FOUND",
    )
    by_admin = await client.post(f"{path}/void", json={"reason": REASON}, headers=admin)
    seen_by_owner = await client.get(f"/api/products/{product.id}", headers=headers)

    assert by_admin.status_code == 200 and seen_by_owner.json()["warrantyStatus"] == "void"


@pytest.mark.parametrize(
    "body",
    [{}, {"reason": ""}, {"reason": "   "}, {"reason": "x" * 501}, {"reason": 5}, {"reason": "x", "by": 1}],
)
async def test_void_needs_a_reason(app: FastAPI, client: httpx.AsyncClient, body: dict[str, object]) -> None:
    product, headers = await _active_product(app)

    response = await client.post(f"/api/products/{product.id}/warranty/void", json=body, headers=headers)

    assert_error(response, 400, "VALIDATION_FAILED")
    assert (await client.get(f"/api/products/{product.id}", headers=headers)).json()[
        "warrantyStatus"
    ] == "active"


async def test_void_and_unvoid_show_on_the_next_list_request(app: FastAPI, client: httpx.AsyncClient) -> None:
    product, headers = await _active_product(app)
    admin = auth_headers(app, await create_admin(app))
    lists = [
        ("/api/products", headers),
        ("/api/products?page=1&limit=10&warrantyStatus=active", headers),
        ("/api/admin/products", admin),
        ("/api/admin/products?warrantyStatus=void", admin),
    ]

    async def statuses() -> list[list[str]]:
        pages = [(await client.get(path, headers=who)).json() for path, who in lists]
        return [
            [p["warrantyStatus"] for p in (page["data"] if isinstance(page, dict) else page)]
            for page in pages
        ]

    path = f"/api/products/{product.id}/warranty"
    with frozen_time(NOW):
        assert await statuses() == [["active"], ["active"], ["active"], []]  # now cached
        await client.post(f"{path}/void", json={"reason": REASON}, headers=headers)
        assert await statuses() == [["void"], [], ["void"], ["void"]]
        await client.post(f"{path}/unvoid", headers=admin)
        assert await statuses() == [["active"], ["active"], ["active"], []]
