from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.config import Settings
from app.main import create_app
from app.models import Event, InboundDelivery, OutboxItem
from tests.factories.inbound import (
    FORMATS,
    REPLY_HTML,
    REPLY_TEXT,
    SECRETS,
    attachment_item,
    claim_address,
    email_in,
    generic,
    post_provider,
    post_standard,
)
from tests.factories.users import create_admin, create_user
from tests.helpers import assert_error
from tests.inbound.support import CUSTOMER, SUPPLIER, make_claim, messages_of
from tests.support.images import image_bytes
from tests.support.pdf import PDF_BYTES

pytestmark = pytest.mark.settings(**SECRETS)


def build(fmt: str, sender: str, claim_id: int, **fields: Any) -> dict[str, Any]:
    return email_in(fmt, sender, claim_address(claim_id), **fields)


async def deliver(client: httpx.AsyncClient, path: str, payload: object, **kwargs: Any) -> httpx.Response:
    if path == "provider":
        return await post_provider(client, payload)
    return await post_standard(client, payload, **kwargs)


async def rows(app: FastAPI, model: type[Any]) -> list[Any]:
    async with app.state.sessionmaker() as session:
        return list((await session.scalars(select(model))).all())


PATHS = ["provider", "standard"]


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


async def test_the_supplier_can_answer_by_email_and_the_customer_is_notified(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    customer, supplier, claim = await make_claim(app)

    response = await post_standard(client, build("generic", f"Sam <{SUPPLIER.upper()}>", claim.id))

    assert response.json()["status"] == "processed", response.text
    [message] = await messages_of(app, claim.id)
    assert message.sender_id == supplier.id
    assert {item.payload["recipientId"] for item in await rows(app, OutboxItem)} == {customer.id}


# --- attachments ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
async def test_the_first_allowed_attachment_is_kept(
    app: FastAPI, client: httpx.AsyncClient, fmt: str
) -> None:
    _customer, _supplier, claim = await make_claim(app)
    item_format = "postmark" if fmt == "postmark" else "provider"
    bad_base64 = attachment_item("broken.png", b"", "image/png", item_format)
    bad_base64["Content" if fmt == "postmark" else "content"] = "%%% not base64 %%%"
    attachments = [
        attachment_item("photo.webp", image_bytes("WEBP"), "image/webp", item_format),  # webp: not by email
        attachment_item("notes.txt", b"plain text", "text/plain", item_format),
        bad_base64,
        attachment_item(
            "liar.pdf", image_bytes(), "application/pdf", item_format
        ),  # name says pdf, bytes png
        attachment_item("crack.png", image_bytes(), "image/png", item_format),
        attachment_item("invoice.pdf", PDF_BYTES, "application/pdf", item_format),
    ]

    response = await post_standard(client, build(fmt, CUSTOMER, claim.id, attachments=attachments))

    assert response.json()["status"] == "processed", response.text
    [message] = await messages_of(app, claim.id)
    assert (message.attachment_name, message.attachment_mime) == ("crack.png", "image/png")
    assert message.attachment_size == len(image_bytes())
    stored = await app.state.storage.read(message.attachment_key)
    assert stored == image_bytes()


async def test_an_attachment_alone_is_a_message(app: FastAPI, client: httpx.AsyncClient) -> None:
    _customer, _supplier, claim = await make_claim(app)
    payload = build(
        "generic",
        CUSTOMER,
        claim.id,
        text="> only a quote\n",
        attachments=[
            {
                "filename": "scan",
                "contentType": "application/octet-stream",
                "content": base64.b64encode(PDF_BYTES).decode(),
            }
        ],
    )

    response = await post_standard(client, payload)

    assert response.json()["status"] == "processed", response.text
    [message] = await messages_of(app, claim.id)
    assert (message.body, message.attachment_name, message.attachment_mime) == (
        "",
        "scan.pdf",
        "application/pdf",
    )


@pytest.mark.settings(**SECRETS, max_inbound_attachment_size=len(PDF_BYTES) - 1)
async def test_an_attachment_over_the_limit_is_ignored(app: FastAPI, client: httpx.AsyncClient) -> None:
    _customer, _supplier, claim = await make_claim(app)
    payload = build(
        "provider", CUSTOMER, claim.id, attachments=[attachment_item("a.pdf", PDF_BYTES, "application/pdf")]
    )

    response = await post_standard(client, payload)

    assert response.json()["status"] == "processed", response.text
    [message] = await messages_of(app, claim.id)
    assert (message.body, message.attachment_key) == (REPLY_TEXT, None)


# --- rejections and ignored mail ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", PATHS)
async def test_no_claim_address_is_400(app: FastAPI, client: httpx.AsyncClient, path: str) -> None:
    await make_claim(app)
    payload = generic(CUSTOMER, "support@warranty.local, claim+1@other.example")

    assert_error(await deliver(client, path, payload), 400, "VALIDATION_FAILED")


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


@pytest.mark.parametrize("claim_id", [999_999, 10**30])
async def test_unknown_claim_is_404(app: FastAPI, client: httpx.AsyncClient, claim_id: int) -> None:
    await make_claim(app)

    assert_error(await post_standard(client, build("generic", CUSTOMER, claim_id)), 404, "NOT_FOUND")


async def test_unknown_sender_is_404(app: FastAPI, client: httpx.AsyncClient) -> None:
    _customer, _supplier, claim = await make_claim(app)

    response = await post_standard(client, build("generic", "stranger@example.com", claim.id))

    assert_error(response, 404, "NOT_FOUND")


@pytest.mark.parametrize("who", ["other-user", "admin", "unassigned-supplier"])
async def test_a_sender_who_is_not_a_participant_is_403(
    app: FastAPI, client: httpx.AsyncClient, who: str
) -> None:
    _customer, _supplier, claim = await make_claim(app, assigned=who != "unassigned-supplier")
    if who == "other-user":
        sender = (await create_user(app)).email
    elif who == "admin":
        sender = (await create_admin(app)).email
    else:
        sender = SUPPLIER

    assert_error(await post_standard(client, build("generic", sender, claim.id)), 403, "FORBIDDEN")
    assert await messages_of(app, claim.id) == []


async def test_a_closed_claim_takes_no_message(app: FastAPI, client: httpx.AsyncClient) -> None:
    _customer, _supplier, claim = await make_claim(app, status="closed")

    response = await post_standard(client, build("provider", CUSTOMER, claim.id))

    assert response.status_code == 200
    assert response.json() == {"status": "ignored"}
    assert await messages_of(app, claim.id) == []


@pytest.mark.parametrize(
    "text", ["", "> all quoted\n", "On Mon, Jan 5, 2026 at 10:12 AM X wrote:\n> old\n", "\n-- \nAnn\n"]
)
async def test_nothing_new_is_ignored(app: FastAPI, client: httpx.AsyncClient, text: str) -> None:
    _customer, _supplier, claim = await make_claim(app)

    response = await post_standard(client, build("generic", CUSTOMER, claim.id, text=text))

    assert response.json() == {"status": "ignored"}
    assert await messages_of(app, claim.id) == []


AUTOMATED: dict[str, Callable[[int], dict[str, Any]]] = {
    "auto-submitted": lambda c: build("generic", CUSTOMER, c, headers={"Auto-Submitted": "auto-replied"}),
    "auto-generated": lambda c: build(
        "provider", CUSTOMER, c, headers=[{"name": "auto-submitted", "value": "auto-generated"}]
    ),
    "x-autoreply": lambda c: build("generic", CUSTOMER, c, headers={"X-Autoreply": "yes"}),
    "x-autorespond": lambda c: build(
        "postmark", CUSTOMER, c, headers=[{"Name": "X-Autorespond", "Value": "Out of office"}]
    ),
    "precedence-bulk": lambda c: build("generic", CUSTOMER, c, headers={"Precedence": "bulk"}),
    "precedence-auto_reply": lambda c: build("generic", CUSTOMER, c, headers={"Precedence": "auto_reply"}),
    "precedence-list": lambda c: build("generic", CUSTOMER, c, headers={"Precedence": "list"}),
    "precedence-junk": lambda c: build("generic", CUSTOMER, c, headers={"Precedence": "Junk"}),
    "mailer-daemon": lambda c: build("generic", "MAILER-DAEMON@mx.example.com", c),
    "postmaster": lambda c: build("generic", "postmaster@example.com", c),
    "no-reply": lambda c: build("generic", "no-reply@example.com", c),
    "noreply": lambda c: build("generic", "Shop <noreply@example.com>", c),
    "no_reply": lambda c: build("generic", "no_reply@example.com", c),
    "own-sender": lambda c: build("generic", "Warranty <notifications@warranty.local>", c),
    "claim-address": lambda c: build("generic", claim_address(c), c),
}


@pytest.mark.parametrize("make_payload", AUTOMATED.values(), ids=AUTOMATED.keys())
async def test_auto_replies_and_bounces_create_nothing(
    app: FastAPI, client: httpx.AsyncClient, make_payload: Callable[[int], dict[str, Any]]
) -> None:
    _customer, _supplier, claim = await make_claim(app)

    response = await post_standard(client, make_payload(claim.id))

    assert response.status_code == 200
    assert response.json() == {"status": "ignored"}
    assert await messages_of(app, claim.id) == []
    assert await rows(app, OutboxItem) == []


async def test_auto_submitted_no_is_a_person(app: FastAPI, client: httpx.AsyncClient) -> None:
    _customer, _supplier, claim = await make_claim(app)

    response = await post_standard(
        client, build("generic", CUSTOMER, claim.id, headers={"Auto-Submitted": "No"})
    )

    assert response.json()["status"] == "processed", response.text


# --- idempotency ------------------------------------------------------------------------------------------


async def test_same_webhook_id_is_a_duplicate(app: FastAPI, client: httpx.AsyncClient) -> None:
    _customer, _supplier, claim = await make_claim(app)

    first = await post_standard(client, build("provider", CUSTOMER, claim.id), webhook_id="msg_1")
    # A retry of the same webhook; even its body differs (a fresh email id and Message-ID).
    second = await post_standard(client, build("provider", CUSTOMER, claim.id), webhook_id="msg_1")

    assert first.json()["status"] == "processed"
    assert second.json() == {"status": "duplicate"}
    assert len(await messages_of(app, claim.id)) == 1


@pytest.mark.parametrize("path", PATHS)
async def test_same_provider_email_id_is_a_duplicate(
    app: FastAPI, client: httpx.AsyncClient, path: str
) -> None:
    _customer, _supplier, claim = await make_claim(app)

    first = await deliver(client, path, build("provider", CUSTOMER, claim.id, email_id="e-1"))
    second = await deliver(client, path, build("provider", CUSTOMER, claim.id, email_id="e-1"))

    assert (first.json()["status"], second.json()) == ("processed", {"status": "duplicate"})
    assert len(await messages_of(app, claim.id)) == 1


async def test_same_message_id_is_a_duplicate_across_paths_and_formats(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    _customer, _supplier, claim = await make_claim(app)

    first = await post_provider(client, build("postmark", CUSTOMER, claim.id, message_id="m-1"))
    second = await post_standard(client, build("provider", CUSTOMER, claim.id, message_id="m-1"))

    assert (first.json()["status"], second.json()) == ("processed", {"status": "duplicate"})
    assert len(await messages_of(app, claim.id)) == 1
    keys = {row.key for row in await rows(app, InboundDelivery)}
    assert "msgid:m-1@mail.example.com" in keys


async def test_different_emails_are_not_duplicates(app: FastAPI, client: httpx.AsyncClient) -> None:
    _customer, _supplier, claim = await make_claim(app)

    for _ in range(2):
        assert (await post_standard(client, build("provider", CUSTOMER, claim.id))).json()[
            "status"
        ] == "processed"

    assert len(await messages_of(app, claim.id)) == 2


@pytest.mark.parametrize("path", PATHS)
async def test_concurrent_deliveries_of_one_email_make_one_message(
    app: FastAPI, client: httpx.AsyncClient, path: str
) -> None:
    _customer, _supplier, claim = await make_claim(app)
    payload = build("provider", CUSTOMER, claim.id)

    responses = await asyncio.gather(*(deliver(client, path, payload, webhook_id="msg_x") for _ in range(2)))

    assert sorted(response.json()["status"] for response in responses) == ["duplicate", "processed"]
    assert len(await messages_of(app, claim.id)) == 1
    assert len(await rows(app, Event)) == 1


@pytest.mark.postgres_only
async def test_many_concurrent_deliveries_make_one_message_on_postgres(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    _customer, _supplier, claim = await make_claim(app)
    payload = build("postmark", CUSTOMER, claim.id)

    responses = await asyncio.gather(*(post_provider(client, payload) for _ in range(6)))

    assert sorted(response.json()["status"] for response in responses) == ["duplicate"] * 5 + ["processed"]
    assert len(await messages_of(app, claim.id)) == 1


async def test_delivery_keys_point_at_the_message(app: FastAPI, client: httpx.AsyncClient) -> None:
    _customer, _supplier, claim = await make_claim(app)

    response = await post_standard(
        client, build("provider", CUSTOMER, claim.id, email_id="e-9", message_id="m-9"), webhook_id="msg_9"
    )

    deliveries = {row.key: row.message_id for row in await rows(app, InboundDelivery)}
    message_id = int(response.json()["messageId"])
    assert deliveries == {
        "webhook:msg_9": message_id,
        "email:e-9": message_id,
        "msgid:m-9@mail.example.com": message_id,
    }


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
