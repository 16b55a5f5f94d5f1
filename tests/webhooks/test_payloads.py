"""The `data` of each outbound event (app/webhooks/payloads.py): the resource as the REST API shows it, and
what changed. Each event type is caused through the API (or the expiry job) as a user causes it and read
as a real receiver gets it; the shapes are also checked on rows built here."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from types import SimpleNamespace

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import utc_today
from app.models import Claim, Message, User, WarrantyExtension
from app.products.expiry_alerts import send_expiry_alerts
from app.webhooks import payloads
from tests.factories.claims import claim_cast
from tests.factories.outcomes import extension_from_today, resolved_cast
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_user
from tests.factories.webhooks import register, verified, webhook_worker
from tests.webhooks.receiver import Receiver
from tests.webhooks.support import events_at

pytestmark = pytest.mark.settings(webhook_allow_private=True)


AT = datetime(2026, 5, 1, 12, 30, 15, 999, tzinfo=UTC)


def test_a_claim_and_its_outcome_as_the_api_shows_them() -> None:
    row = Claim(
        id=7, product_id=3, customer_id=10, supplier_id=None, status="resolved", description="Leaks",
        outcome="repaired", outcome_note="New seal", created_at=AT, updated_at=AT + timedelta(hours=1),
    )  # fmt: skip
    extension = WarrantyExtension(months=6, starts_on=date(2027, 1, 1), ends_on=date(2027, 6, 30))

    assert payloads.claim(row) == {
        "id": 7, "productId": 3, "customerId": 10, "supplierId": None, "organizationId": None,
        "status": "resolved", "description": "Leaks", "outcome": "repaired", "outcomeNote": "New seal",
        "createdAt": "2026-05-01T12:30:15+00:00", "updatedAt": "2026-05-01T13:30:15+00:00",
    }  # fmt: skip
    row.organization_id = 4  # routed (contract 17.12): webhooks name the organisation
    assert payloads.claim(row)["organizationId"] == 4
    assert payloads.outcome(row, extension) == {
        "outcome": "repaired",
        "outcomeNote": "New seal",
        "warrantyExtension": {"months": 6, "startsOn": "2027-01-01", "endsOn": "2027-06-30"},
    }
    assert payloads.outcome(row, None)["warrantyExtension"] is None


def test_a_message_with_its_attachment_and_a_deleted_senders() -> None:
    row = Message(
        id=42, claim_id=7, sender_id=10, body="See the bill", created_at=AT,
        attachment_name="bill.pdf", attachment_mime="application/pdf", attachment_size=1234,
    )  # fmt: skip

    assert payloads.message(row, User(id=10, name="Ann")) == {
        "id": "42",
        "senderId": "10",
        "senderName": "Ann",
        "message": "See the bill",
        "createdAt": "2026-05-01T12:30:15+00:00",
        "attachment": {
            "filename": "bill.pdf",
            "mimeType": "application/pdf",
            "size": 1234,
            "url": "/api/claims/7/messages/42/attachment",
        },
    }
    plain = Message(id=43, claim_id=7, sender_id=None, body="Hi", created_at=AT)
    gone = payloads.message(plain, None)
    assert (gone["senderId"], gone["senderName"], gone["attachment"]) == (None, "Deleted user", None)


def test_an_expiring_product_ends_at_midnight_utc_of_its_last_day() -> None:
    row = SimpleNamespace(
        id=5,
        name="Kettle",
        brand="Bosch",
        category="Kitchen",
        owner_id=10,
        warranty_expires_on=date(2027, 3, 31),
    )

    assert payloads.expiring_product(row, 7, 5) == {
        "product": {
            "id": 5, "name": "Kettle", "brand": "Bosch", "category": "Kitchen", "ownerId": 10,
            "warrantyExpiresAt": "2027-03-31T00:00:00+00:00",
        },
        "thresholdDays": 7,
        "daysLeft": 5,
    }  # fmt: skip


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

    events = await events_at(app, receiver, "/all", endpoint["secret"])
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
    [event] = await events_at(app, receiver, "/hook", endpoint["secret"])
    assert event["data"]["claim"]["supplierId"] is None
    assert event["data"]["previousSupplierId"] == cast.supplier.id


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
    [event] = await events_at(app, receiver, "/expiry", endpoint["secret"])
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


async def test_the_status_change_carries_the_outcome(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/hooks"), events=["claim.status_changed"])
    cast = await resolved_cast(app, client)
    reopened = await client.post(
        f"/api/claims/{cast.claim.id}/status",
        json={"status": "in_progress"},
        headers=auth_headers(app, cast.customer),
    )
    assert reopened.status_code == 200, reopened.text

    await webhook_worker(app).run_until_idle()

    events = [verified(endpoint["secret"], item)["data"] for item in receiver.at("/hooks")]
    by_status = {event["claim"]["status"]: event for event in events}
    resolved, again = by_status["resolved"]["claim"], by_status["in_progress"]["claim"]
    assert (resolved["outcome"], resolved["outcomeNote"]) == ("replaced", "A new <pump> & seal.")
    assert resolved["warrantyExtension"] == extension_from_today()
    assert (again["outcome"], again["outcomeNote"], again["warrantyExtension"]) == (None, None, None)
    assert by_status["in_progress"]["previousStatus"] == "resolved"
