"""Each event type, caused through the API (or the expiry job) as a user causes it, arrives at a real
receiver signed per Standard Webhooks, recorded in the change's own transaction."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import utc_today
from app.products.expiry_alerts import send_expiry_alerts
from tests.factories.claims import claim_cast, create_claim
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_user
from tests.factories.webhooks import deliveries, register, verified, webhook_worker
from tests.helpers import assert_error
from tests.webhooks.receiver import Receiver

pytestmark = pytest.mark.settings(webhook_allow_private=True)


async def _events(app: FastAPI, receiver: Receiver, path: str, secret: str) -> list[dict[str, Any]]:
    await webhook_worker(app).run_until_idle()
    return [verified(secret, item) for item in receiver.at(path)]


async def test_every_claim_and_message_event_arrives_signed(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/all"))
    customer = await create_user(app)
    product = await create_product(app, customer)
    cast = await claim_cast(app)  # for its admin and supplier
    admin, supplier = auth_headers(app, cast.admin), auth_headers(app, cast.supplier)

    opened = await client.post(
        "/api/claims",
        json={"productId": product.id, "description": "Cold water"},
        headers=auth_headers(app, customer),
    )
    assert opened.status_code == 201, opened.text
    claim_id = opened.json()["id"]
    path = f"/api/claims/{claim_id}"
    assigned = await client.put(f"{path}/supplier", json={"supplierId": cast.supplier.id}, headers=admin)
    assert assigned.status_code == 200, assigned.text
    moved = await client.post(f"{path}/status", json={"status": "in_progress"}, headers=supplier)
    assert moved.status_code == 200, moved.text
    sent = await client.post(f"{path}/messages", json={"message": "A part is on its way."}, headers=supplier)
    assert sent.status_code == 201, sent.text

    events = await _events(app, receiver, "/all", endpoint["secret"])
    # Sent side by side, they may arrive in any order (receivers order by `timestamp` if they must).
    by_type = {event["type"]: event["data"] for event in events}
    assert len(events) == len(by_type) == 4
    created, assignment = by_type["claim.created"], by_type["claim.supplier_assigned"]
    status, message = by_type["claim.status_changed"], by_type["message.created"]
    assert created["claim"]["id"] == claim_id
    assert created["claim"]["status"] == "open" and created["claim"]["productId"] == product.id
    assert created["claim"]["customerId"] == customer.id and created["claim"]["supplierId"] is None
    assert created["claim"]["description"] == "Cold water"
    assert assignment == {
        "claim": {**assignment["claim"], "id": claim_id, "supplierId": cast.supplier.id},
        "previousSupplierId": None,
        "actorId": cast.admin.id,
    }
    assert status["claim"]["status"] == "in_progress" and status["previousStatus"] == "open"
    assert status["actorId"] == cast.supplier.id
    assert message["claimId"] == claim_id
    assert message["message"]["id"] == sent.json()["id"]
    assert message["message"]["senderId"] == str(cast.supplier.id)
    assert message["message"]["senderName"] == "Sam Supplier"
    assert message["message"]["message"] == "A part is on its way."
    assert message["message"]["attachment"] is None
    assert all(event["timestamp"].endswith("Z") for event in events)


async def test_unassigning_the_supplier_is_an_assignment_to_none(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/hook"), events=["claim.supplier_assigned"])
    cast = await claim_cast(app)
    response = await client.put(
        f"/api/claims/{cast.claim.id}/supplier",
        json={"supplierId": None},
        headers=auth_headers(app, cast.admin),
    )
    assert response.status_code == 200
    [event] = await _events(app, receiver, "/hook", endpoint["secret"])
    assert event["data"]["claim"]["supplierId"] is None
    assert event["data"]["previousSupplierId"] == cast.supplier.id


async def test_an_endpoint_receives_only_the_events_it_chose(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    messages_only = await register(app, client, receiver.url("/messages"), events=["message.created"])
    statuses_only = await register(app, client, receiver.url("/statuses"), events=["claim.status_changed"])
    cast = await claim_cast(app)
    supplier = auth_headers(app, cast.supplier)
    await client.post(f"/api/claims/{cast.claim.id}/messages", json={"message": "Hello"}, headers=supplier)
    await client.post(f"/api/claims/{cast.claim.id}/status", json={"status": "in_progress"}, headers=supplier)

    messages = await _events(app, receiver, "/messages", messages_only["secret"])
    statuses = await _events(app, receiver, "/statuses", statuses_only["secret"])
    assert [event["type"] for event in messages] == ["message.created"]
    assert [event["type"] for event in statuses] == ["claim.status_changed"]
    # Each endpoint's delivery has its own webhook-id.
    assert (
        receiver.at("/messages")[0].headers["webhook-id"] != receiver.at("/statuses")[0].headers["webhook-id"]
    )


async def test_a_change_that_is_refused_sends_nothing(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    await register(app, client, receiver.url("/all"))
    cast = await claim_cast(app)
    customer = auth_headers(app, cast.customer)
    again = await client.post(
        "/api/claims", json={"productId": cast.product.id, "description": "Again"}, headers=customer
    )
    assert_error(again, 409, "CLAIM_ALREADY_ACTIVE")
    closed = await create_claim(app, await create_product(app, cast.customer), status="closed")
    refused = await client.post(f"/api/claims/{closed.id}/messages", json={"message": "Hi"}, headers=customer)
    assert_error(refused, 409, "CLAIM_CLOSED")
    wrong = await client.post(
        f"/api/claims/{cast.claim.id}/status", json={"status": "closed"}, headers=customer
    )
    assert_error(wrong, 409, "INVALID_STATUS_TRANSITION")
    assert await deliveries(app) == []
    await webhook_worker(app).run_until_idle()
    assert receiver.received == []


@pytest.mark.settings(webhook_allow_private=True, expiry_alert_days=["30", "7"])
async def test_a_warranty_coming_to_its_end_is_announced_once(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/expiry"), events=["product.warranty_expiring"])
    owner = await create_user(app)
    expires_on = utc_today() + timedelta(days=5)
    product = await create_product(app, owner, name="Kettle", brand="Bosch", category="Kitchen")
    async with app.state.sessionmaker() as session, session.begin():
        merged = await session.merge(product)
        merged.warranty_expires_on = expires_on
    await create_product(app, owner, name="Far away")  # expires in 2028: nothing to say

    await send_expiry_alerts(app.state.sessionmaker, app.state.settings)
    await send_expiry_alerts(app.state.sessionmaker, app.state.settings)  # again: nothing new
    [event] = await _events(app, receiver, "/expiry", endpoint["secret"])
    assert event["type"] == "product.warranty_expiring"
    assert event["data"] == {
        "product": {
            "id": product.id,
            "name": "Kettle",
            "brand": "Bosch",
            "category": "Kitchen",
            "ownerId": owner.id,
            "warrantyExpiresAt": f"{expires_on.isoformat()}T00:00:00+00:00",
        },
        "thresholdDays": 7,
        "daysLeft": 5,
    }
