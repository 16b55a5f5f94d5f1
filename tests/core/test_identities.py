"""12.2: ids are never given to a new row after a delete, and a deleted claim leaves the hub's history."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select

from app.models import Event
from app.realtime.publishing import messages_topic, status_topic
from tests.factories.users import DEFAULT_PASSWORD, auth_headers, create_admin, create_supplier
from tests.helpers import assert_error
from tests.support.images import image_bytes

PRODUCT = {
    "name": "Kettle",
    "brand": "Acme",
    "category": "Kitchen",
    "purchaseDate": "2025-01-10",
    "warrantyPeriodMonths": 24,
}


async def _register(client: httpx.AsyncClient, email: str) -> tuple[int, dict[str, str]]:
    created = await client.post(
        "/api/register", json={"email": email, "password": DEFAULT_PASSWORD, "name": "Someone"}
    )
    assert created.status_code == 201, created.text
    login = await client.post("/api/login", json={"email": email, "password": DEFAULT_PASSWORD})
    return created.json()["id"], {"Authorization": f"Bearer {login.json()['token']}"}


async def test_a_deleted_accounts_id_goes_to_no_one_and_its_token_reads_nothing(
    client: httpx.AsyncClient,
) -> None:
    gone_id, gone_token = await _register(client, "gone@example.com")
    assert (await client.delete("/api/me", headers=gone_token)).status_code == 204

    new_id, new_token = await _register(client, "new@example.com")
    await client.post("/api/products", json=PRODUCT, headers=new_token)

    assert new_id > gone_id
    assert_error(await client.get("/api/me", headers=gone_token), 401, "AUTH_TOKEN_INVALID")
    assert_error(await client.get("/api/products", headers=gone_token), 401, "AUTH_TOKEN_INVALID")


async def _claim_with_everything(
    app: FastAPI, client: httpx.AsyncClient, headers: dict[str, str]
) -> dict[str, int]:
    """A product with a receipt and a claim with a message (and so events): answers their ids."""
    product = (await client.post("/api/products", json=PRODUCT, headers=headers)).json()["id"]
    receipt = await client.post(
        f"/api/products/{product}/receipts",
        files={"file": ("r.png", image_bytes(), "image/png")},
        headers=headers,
    )
    claim = await client.post(
        "/api/claims", json={"productId": product, "description": "Leaks"}, headers=headers
    )
    message = await client.post(
        f"/api/claims/{claim.json()['id']}/messages", json={"message": "Still leaking"}, headers=headers
    )
    async with app.state.sessionmaker() as session:
        event = await session.scalar(select(func.max(Event.id)))
    assert receipt.status_code == claim.status_code == message.status_code == 201
    return {
        "product": product,
        "receipt": receipt.json()["id"],
        "claim": claim.json()["id"],
        "message": int(message.json()["id"]),
        "event": int(event or 0),
    }


async def _events_of(app: FastAPI, claim_id: int) -> list[int]:
    async with app.state.sessionmaker() as session:
        topics = [messages_topic(claim_id), status_topic(claim_id)]
        return list(await session.scalars(select(Event.id).where(Event.topic.in_(topics))))


async def test_product_claim_message_receipt_and_event_ids_are_never_reused(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    _, headers = await _register(client, "ann@example.com")
    first = await _claim_with_everything(app, client, headers)
    assert await _events_of(app, first["claim"])

    assert (await client.delete(f"/api/products/{first['product']}", headers=headers)).status_code == 204
    # The deleted claim left the hub's history with it.
    assert await _events_of(app, first["claim"]) == []

    second = await _claim_with_everything(app, client, headers)
    for name, old_id in first.items():
        assert second[name] > old_id, name


async def test_deleting_an_account_deletes_its_claims_events_but_not_others(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    admin = await create_admin(app)
    _, leaving = await _register(client, "leaving@example.com")
    _, staying = await _register(client, "staying@example.com")
    gone = await _claim_with_everything(app, client, leaving)
    kept = await _claim_with_everything(app, client, staying)
    me = (await client.get("/api/me", headers=leaving)).json()["id"]

    assert (await client.delete(f"/api/users/{me}", headers=auth_headers(app, admin))).status_code == 204

    assert await _events_of(app, gone["claim"]) == []
    assert len(await _events_of(app, kept["claim"])) == 1


async def test_a_supplier_keeps_the_events_of_claims_that_stay(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """A supplier's deletion unassigns them; the claims (and their history) stay with their customers."""
    admin, supplier = await create_admin(app), await create_supplier(app)
    _, customer = await _register(client, "ann@example.com")
    claim = (await _claim_with_everything(app, client, customer))["claim"]
    await client.put(
        f"/api/claims/{claim}/supplier", json={"supplierId": supplier.id}, headers=auth_headers(app, admin)
    )

    assert (
        await client.delete(f"/api/users/{supplier.id}", headers=auth_headers(app, admin))
    ).status_code == 204

    assert len(await _events_of(app, claim)) == 1
