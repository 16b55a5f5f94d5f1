"""The rules of claims (app/claims/service.py), through the API: opening one (only on the caller's own
product, one active claim per product), what a status change records in its transaction (event,
notifications) or, rolled back, does not, and assigning a claim's supplier."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from app.models import Event, OutboxItem
from tests.claims.support import stored_state
from tests.factories.claims import Cast, claim_cast, create_claim
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error, failing_statement

NOW = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=5)


# Opening a claim


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


# A status change and what it records


async def _move(
    app: FastAPI, client: httpx.AsyncClient, cast: Cast, actor: str, target: str
) -> httpx.Response:
    headers = auth_headers(app, getattr(cast, actor))
    with frozen_time(NOW):
        return await client.post(
            f"/api/claims/{cast.claim.id}/status", json={"status": target}, headers=headers
        )


def _payloads(events: list[Event]) -> list[tuple[str, dict[str, Any]]]:
    return [(row.topic, json.loads(row.payload)) for row in events]


def _kinds(outbox: list[OutboxItem]) -> list[tuple[str, dict[str, Any]]]:
    return sorted(
        ((row.kind, row.payload) for row in outbox), key=lambda item: (item[0], item[1]["recipientId"])
    )


async def test_a_status_change_records_its_event_and_notifies_the_other_party(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    response = await _move(app, client, cast, "supplier", "in_progress")

    assert response.json()["updatedAt"] == NOW.isoformat()
    _, events, outbox = await stored_state(app, cast.claim.id)
    assert _payloads(events) == [
        (
            f"claims/{cast.claim.id}/status",
            {
                "type": "status_update",
                "claimId": cast.claim.id,
                "status": "in_progress",
                "updatedAt": NOW.strftime("%Y-%m-%dT%H:%M:%SZ"),
            },
        )
    ]
    payload = {"claimId": cast.claim.id, "status": "in_progress", "recipientId": cast.customer.id}
    assert _kinds(outbox) == [("email.claim_status", payload), ("push.claim_status", payload)]


async def test_an_admin_who_acts_notifies_both_and_settings_are_respected(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app, status="resolved", notifications_enabled=False)
    response = await _move(app, client, cast, "admin", "closed")
    assert response.status_code == 200

    _, events, outbox = await stored_state(app, cast.claim.id)
    assert [json.loads(row.payload)["status"] for row in events] == ["closed"]
    base = {"claimId": cast.claim.id, "status": "closed"}
    assert _kinds(outbox) == [
        ("email.claim_status", {**base, "recipientId": cast.customer.id}),
        ("email.claim_status", {**base, "recipientId": cast.supplier.id}),
        ("push.claim_status", {**base, "recipientId": cast.supplier.id}),
    ]


async def test_close_records_a_status_update(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app, status="resolved")
    headers = auth_headers(app, cast.customer)
    with frozen_time(NOW):
        response = await client.post(f"/api/claims/{cast.claim.id}/close", headers=headers)
    assert response.status_code == 200, response.text
    _, events, outbox = await stored_state(app, cast.claim.id)
    assert _payloads(events) == [
        (
            f"claims/{cast.claim.id}/status",
            {
                "type": "status_update",
                "claimId": cast.claim.id,
                "status": "closed",
                "updatedAt": NOW.strftime("%Y-%m-%dT%H:%M:%SZ"),
            },
        )
    ]
    assert {row.payload["recipientId"] for row in outbox} == {cast.supplier.id}


async def test_a_failed_request_records_nothing(app: FastAPI, client: httpx.AsyncClient) -> None:
    """The database fails after the event is written (at the outbox insert): the request is a 500 and
    neither the status, nor the event, nor any notification is kept."""
    cast = await claim_cast(app)

    with failing_statement(app, "INSERT INTO outbox "):
        response = await _move(app, client, cast, "supplier", "in_progress")

    assert_error(response, 500, "INTERNAL_ERROR")
    assert await stored_state(app, cast.claim.id) == ("open", [], [])


# Assigning the supplier


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
