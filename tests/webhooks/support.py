"""Helpers of the webhooks tests: an admin's test event sent to an endpoint, its deliveries as the admin list
shows them, and the events a receiver got."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from tests.factories.users import auth_headers, create_admin
from tests.factories.webhooks import verified, webhook_worker
from tests.webhooks.receiver import Receiver


async def send_test(app: FastAPI, client: httpx.AsyncClient, webhook_id: int) -> dict[str, object]:
    """`POST /api/admin/webhooks/{id}/test`; answers the 202 body (the pending delivery)."""
    admin = auth_headers(app, await create_admin(app))
    response = await client.post(f"/api/admin/webhooks/{webhook_id}/test", headers=admin)
    assert response.status_code == 202, response.text
    body: dict[str, object] = response.json()
    return body


async def deliveries_of(
    app: FastAPI, client: httpx.AsyncClient, webhook_id: int, query: str = ""
) -> list[dict]:
    """The endpoint's deliveries as `GET /api/admin/webhooks/{id}/deliveries{query}` lists them."""
    admin = auth_headers(app, await create_admin(app))
    response = await client.get(f"/api/admin/webhooks/{webhook_id}/deliveries{query}", headers=admin)
    assert response.status_code == 200, response.text
    return list(response.json()["data"])


async def events_at(app: FastAPI, receiver: Receiver, path: str, secret: str) -> list[dict[str, Any]]:
    """Delivers what is queued, then answers the events that arrived at `path`, each verified."""
    await webhook_worker(app).run_until_idle()
    return [verified(secret, item) for item in receiver.at(path)]
