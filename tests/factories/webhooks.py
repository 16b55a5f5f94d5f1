"""Webhook endpoints, registered as an admin does, and the worker that delivers them."""

from __future__ import annotations

import ssl
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select
from standardwebhooks.webhooks import Webhook

from app.config import Settings
from app.models import WebhookDelivery
from app.outbox.worker import OutboxWorker
from app.webhooks.delivery import WebhookDeliverer
from app.webhooks.recording import EVENT_TYPES
from app.worker_assembly import build_worker
from tests.factories.users import auth_headers, create_admin
from tests.webhooks.receiver import Received


async def register(
    app: FastAPI, client: httpx.AsyncClient, url: str, events: list[str] | None = None, **fields: Any
) -> dict[str, Any]:
    """Registers an endpoint through the API; answers the 201 body (with its secret)."""
    admin = await create_admin(app)
    body = {"url": url, "events": events or list(EVENT_TYPES), **fields}
    response = await client.post("/api/admin/webhooks", json=body, headers=auth_headers(app, admin))
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def webhook_worker(
    app: FastAPI, settings: Settings | None = None, tls: ssl.SSLContext | None = None
) -> OutboxWorker:
    """The outbox worker as the app builds it (other `settings` to change its rules)."""
    settings = settings or app.state.settings
    deliverer = WebhookDeliverer(settings, app.state.sessionmaker, tls=tls)
    return build_worker(settings, app.state.sessionmaker, app.state.storage, webhooks=deliverer)


def verified(secret: str, received: Received) -> dict[str, Any]:
    """The body, verified with the `standardwebhooks` package (raises when the signature is wrong)."""
    payload: dict[str, Any] = Webhook(secret).verify(received.body, received.headers)
    return payload


async def deliveries(app: FastAPI) -> list[WebhookDelivery]:
    async with app.state.sessionmaker() as session:
        return list(await session.scalars(select(WebhookDelivery).order_by(WebhookDelivery.id)))
