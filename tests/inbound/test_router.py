"""The inbound email webhooks (app/inbound/router.py): each format on each path becomes a message (the answer,
its event, the other party's notifications), an HTML-only reply loses its quote, a payload that cannot
be read or is not JSON is a 400, and a database failure a 5xx so that the provider retries."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.main import create_app
from app.models import Event, OutboxItem
from tests.factories.inbound import (
    FORMATS,
    REPLY_HTML,
    REPLY_TEXT,
    SECRETS,
    claim_address,
    generic,
    post_standard,
)
from tests.helpers import assert_error
from tests.inbound.support import CUSTOMER, PATHS, build, deliver, make_claim, messages_of, rows

pytestmark = pytest.mark.settings(**SECRETS)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("fmt", FORMATS)
async def test_each_format_on_each_path_posts_the_reply_as_a_message(
    app: FastAPI, client: httpx.AsyncClient, fmt: str, path: str
) -> None:
    customer, supplier, claim = await make_claim(app)

    response = await deliver(client, path, build(fmt, f"Ann <{CUSTOMER}>", claim.id))

    assert response.status_code == 200, response.text
    body = response.json()
    [message] = await messages_of(app, claim.id)
    assert body == {"status": "processed", "claimId": claim.id, "messageId": str(message.id)}
    assert (message.body, message.sender_id) == (REPLY_TEXT, customer.id)
    [event] = await rows(app, Event)
    assert event.topic == f"claims/{claim.id}/messages"
    payload = json.loads(event.payload)
    assert payload["type"] == "new_message"
    assert payload["message"]["id"] == str(message.id)
    outbox = await rows(app, OutboxItem)
    assert {(item.kind, item.payload["recipientId"]) for item in outbox} == {
        ("email.claim_message", supplier.id),
        ("push.claim_message", supplier.id),
    }


@pytest.mark.parametrize("fmt", FORMATS)
async def test_html_only_reply_loses_its_quote(app: FastAPI, client: httpx.AsyncClient, fmt: str) -> None:
    _customer, _supplier, claim = await make_claim(app)

    response = await post_standard(client, build(fmt, CUSTOMER, claim.id, text="", html=REPLY_HTML))

    assert response.json()["status"] == "processed", response.text
    [message] = await messages_of(app, claim.id)
    assert message.body == REPLY_TEXT


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    "payload", [[1], {"subject": "no format"}, {"from": 5, "to": "claim+1@warranty.local"}]
)
async def test_unreadable_payload_is_400(client: httpx.AsyncClient, path: str, payload: object) -> None:
    assert_error(await deliver(client, path, payload), 400, "VALIDATION_FAILED")


async def test_malformed_json_is_400(client: httpx.AsyncClient) -> None:
    from tests.factories.inbound import provider_headers

    body = b'{"from": "a@example.com", '
    response = await client.post("/api/webhook/resend/inbound", content=body, headers=provider_headers(body))

    assert_error(response, 400, "MALFORMED_JSON")


async def test_a_database_failure_is_a_5xx_so_the_provider_retries(
    make_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    # A database without the schema: every query fails, as when the database is unavailable.
    settings = make_settings(
        **SECRETS,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'no-schema.db'}",
    )
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            response = await post_standard(client, generic(CUSTOMER, claim_address(1)))

    assert_error(response, 500, "INTERNAL_ERROR")
