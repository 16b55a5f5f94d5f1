"""Web Push and notification URLs end to end (contract 19): through the API, the table of consequences and
the outbox worker, to a push service on 127.0.0.1 that checks VAPID and decrypts each payload with the
browser's private key (tests/support/push_service.py), and to an ntfy server (tests/support/ntfy.py)."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, update

from app.core.clock import utc_now
from app.models import OutboxItem
from app.models.enums import OutboxState
from app.notifications.channel_handlers import web_notice
from app.notifications.push import PushNotification
from app.outbox.worker import OutboxWorker
from tests.factories.claims import Cast, claim_cast
from tests.factories.users import auth_headers
from tests.support.ntfy import Ntfy
from tests.support.push_service import Browser, PushService

pytestmark = pytest.mark.settings(webhook_allow_private=True, frontend_url="https://app.example.com")


async def subscribed(
    client: httpx.AsyncClient, push_service: PushService, name: str, headers: dict[str, str]
) -> Browser:
    """A browser that subscribed with the service's public key, and registered its subscription."""
    key = (await client.get("/api/push/web/key")).json()["publicKey"]
    browser = push_service.browser(name, key)
    answer = await client.post("/api/me/web-push-subscriptions", json=browser.subscription(), headers=headers)
    assert answer.status_code == 201, answer.text
    return browser


async def rows(app: FastAPI, kind_prefix: str) -> list[OutboxItem]:
    async with app.state.sessionmaker() as session:
        found = await session.scalars(
            select(OutboxItem).where(OutboxItem.kind.startswith(kind_prefix)).order_by(OutboxItem.id)
        )
        return list(found)


async def due_now(app: FastAPI) -> None:
    """Every pending row due at once (the test does not wait out the backoff)."""
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(
            update(OutboxItem)
            .where(OutboxItem.status == OutboxState.PENDING)
            .values(next_attempt_at=utc_now())
        )


async def post_message(app: FastAPI, client: httpx.AsyncClient, cast: Cast) -> None:
    """Sam, the supplier, asks Ann for her receipt."""
    sent = await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={"message": "Please send the receipt."},
        headers=auth_headers(app, cast.supplier),
    )
    assert sent.status_code == 201, sent.text


async def test_a_message_reaches_the_browser_encrypted_once_with_the_right_headers(
    app: FastAPI, client: httpx.AsyncClient, push_service: PushService, worker: OutboxWorker
) -> None:
    cast = await claim_cast(app)
    browser = await subscribed(client, push_service, "ann", auth_headers(app, cast.customer))

    await post_message(app, client, cast)
    moved = await client.post(
        f"/api/claims/{cast.claim.id}/status",
        json={"status": "in_progress"},
        headers=auth_headers(app, cast.supplier),
    )
    assert moved.status_code == 200
    await worker.run_until_idle()
    await worker.run_until_idle()  # nothing is sent twice

    push_service.assert_nothing_refused()
    url = f"https://app.example.com/claims/{cast.claim.id}"
    message, status = sorted(browser.received, key=lambda payload: payload["type"])
    assert message["type"] == "new_message" and message["claimId"] == cast.claim.id
    assert message["body"] == "Please send the receipt." and message["url"] == url
    assert cast.product.name in message["title"]
    assert status == {
        "type": "status_update",
        "claimId": cast.claim.id,
        "title": f"Claim #{cast.claim.id} ({cast.product.name})",
        "body": "Status: In progress",
        "url": url,
    }
    assert browser.attempts == 2
    urgencies = sorted(headers["urgency"] for headers in browser.headers)
    assert urgencies == ["high", "normal"]
    assert {headers["topic"] for headers in browser.headers} == {f"claim-{cast.claim.id}"}
    assert {headers["ttl"] for headers in browser.headers} == {"86400"}


async def test_the_one_who_acts_and_a_user_without_push_get_nothing(
    app: FastAPI, client: httpx.AsyncClient, push_service: PushService, worker: OutboxWorker
) -> None:
    cast = await claim_cast(app)
    customer = auth_headers(app, cast.customer)
    sam = await subscribed(client, push_service, "sam", auth_headers(app, cast.supplier))
    ann = await subscribed(client, push_service, "ann", customer)
    turned_off = await client.patch("/api/me", json={"notificationsEnabled": False}, headers=customer)
    assert turned_off.status_code == 200, turned_off.text

    await post_message(app, client, cast)
    await worker.run_until_idle()

    assert sam.attempts == 0 and ann.attempts == 0
    assert await rows(app, "webpush.") == []


async def test_a_gone_subscription_is_deleted(
    app: FastAPI, client: httpx.AsyncClient, push_service: PushService, worker: OutboxWorker
) -> None:
    cast = await claim_cast(app)
    customer = auth_headers(app, cast.customer)
    browser = await subscribed(client, push_service, "ann", customer)
    browser.answers = [(410, None)]

    await post_message(app, client, cast)
    await worker.run_until_idle()

    assert browser.attempts == 1 and browser.received == []
    assert (await client.get("/api/me/web-push-subscriptions", headers=customer)).json() == []
    [row] = await rows(app, "webpush.")
    assert row.status == OutboxState.SKIPPED and "410" in (row.last_error or "")


async def test_429_and_5xx_are_retried_after_retry_after_then_delivered_once(
    app: FastAPI, client: httpx.AsyncClient, push_service: PushService, worker: OutboxWorker
) -> None:
    cast = await claim_cast(app)
    browser = await subscribed(client, push_service, "ann", auth_headers(app, cast.customer))
    browser.answers = [(429, "120"), (500, None)]

    await post_message(app, client, cast)
    await worker.run_until_idle()
    [row] = await rows(app, "webpush.")
    assert row.status == OutboxState.PENDING and row.next_attempt_at >= utc_now() + timedelta(seconds=110)

    await due_now(app)
    await worker.run_until_idle()
    await due_now(app)
    await worker.run_until_idle()
    await worker.run_until_idle()

    push_service.assert_nothing_refused()
    assert browser.attempts == 3 and [payload["type"] for payload in browser.received] == ["new_message"]
    [row] = await rows(app, "webpush.")
    assert row.status == OutboxState.DONE and row.attempts == 3


async def test_an_ntfy_topic_receives_the_same_events(
    app: FastAPI, client: httpx.AsyncClient, push_service: PushService, ntfy: Ntfy, worker: OutboxWorker
) -> None:
    cast = await claim_cast(app)
    customer = auth_headers(app, cast.customer)
    browser = await subscribed(client, push_service, "ann", customer)
    added = await client.post(
        "/api/me/notification-targets", json={"url": f"ntfy://{ntfy.host}/ann-alerts"}, headers=customer
    )
    assert added.status_code == 201, added.text
    assert added.json()["redacted"] == "ntfy://127.0.0.1/****" and "ann-alerts" not in added.text
    ntfy.fail_next = 1  # the first publish fails: retried

    await post_message(app, client, cast)
    await client.post(
        f"/api/claims/{cast.claim.id}/status",
        json={"status": "in_progress"},
        headers=auth_headers(app, cast.supplier),
    )
    await worker.run_until_idle()
    await due_now(app)
    await worker.run_until_idle()
    await worker.run_until_idle()

    published = ntfy.on("ann-alerts")
    assert sorted(item.title or "" for item in published) == sorted(p["title"] for p in browser.received)
    assert len(published) == 2 and ntfy.attempts == 3
    assert all(f"https://app.example.com/claims/{cast.claim.id}" in item.message for item in published)
    assert any(item.message.startswith("Please send the receipt.") for item in published)
    assert {row.status for row in await rows(app, "apprise.")} == {OutboxState.DONE}


async def test_a_target_whose_host_turned_private_fails_without_sending(
    app: FastAPI, client: httpx.AsyncClient, ntfy: Ntfy, worker: OutboxWorker
) -> None:
    cast = await claim_cast(app)
    customer = auth_headers(app, cast.customer)
    added = await client.post(
        "/api/me/notification-targets", json={"url": f"ntfy://{ntfy.host}/ann-alerts"}, headers=customer
    )
    assert added.status_code == 201
    app.state.settings.webhook_allow_private = False  # the rule as it is when the notice is sent

    await post_message(app, client, cast)
    await worker.run_until_idle()

    assert ntfy.attempts == 0
    [row] = await rows(app, "apprise.")
    assert row.status == OutboxState.FAILED and "not a public address" in (row.last_error or "")


def test_an_expiry_alert_links_to_the_product() -> None:
    from app.config import Settings

    notice = web_notice(
        PushNotification(
            "Warranty expiring",
            "The warranty of Kettle expires in 7 days.",
            {"type": "warranty_expiring", "productId": "5", "expiresOn": "2026-12-05"},
            thread="product-5",
        ),
        Settings(_env_file=None, frontend_url="https://app.example.com/"),  # type: ignore[call-arg]
    )
    assert notice.payload == {
        "type": "warranty_expiring",
        "claimId": None,
        "title": "Warranty expiring",
        "body": "The warranty of Kettle expires in 7 days.",
        "url": "https://app.example.com/products/5",
        "productId": 5,
    }
    assert notice.topic == "product-5" and notice.urgency == "normal"
