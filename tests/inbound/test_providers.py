"""Postmark as it really sends (contract 13.4): unsigned posts with Basic credentials written in the webhook
URL (app/inbound/signatures.py), refused when they are wrong, or on another provider's path, or when no
password is configured; and MailboxHash naming the claim when the recipients do not (app/inbound/formats.py).
Resend's metadata-only events: test_resend.py; authentication verdicts: test_guards.py; replays without
ids: test_service.py."""

from __future__ import annotations

import base64
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.inbound import SECRETS, claim_address, generic, postmark
from tests.inbound.support import (
    CUSTOMER,
    POSTMARK,
    POSTMARK_PASSWORD,
    POSTMARK_USER,
    REPLY,
    RESEND,
    as_postmark,
    bodies_of,
    messages_of,
    new_claim,
)
from tests.support.pdf import PDF_BYTES

SETTINGS: dict[str, Any] = {**SECRETS, **RESEND, **POSTMARK, "resend_timeout": 1.0}
pytestmark = pytest.mark.settings(**SETTINGS)


async def test_an_unsigned_postmark_post_with_basic_credentials_becomes_a_message_with_attachment(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    claim = await new_claim(app)
    content = base64.b64encode(PDF_BYTES).decode()
    attachment = {
        "Name": "bill.pdf",
        "Content": content,
        "ContentType": "application/pdf",
        "ContentLength": len(PDF_BYTES),
    }
    payload = postmark(CUSTOMER, claim_address(claim.id), text=REPLY, attachments=[attachment])

    async with as_postmark(client) as postmark_client:
        response = await postmark_client.post("/api/webhook/postmark/inbound", json=payload)

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "processed"
    [message] = await messages_of(app, claim.id)
    assert (message.body, message.attachment_name) == ("The part fits.", "bill.pdf")


@pytest.mark.parametrize(
    ("user", "password"),
    [(POSTMARK_USER, "wrong"), ("someone", POSTMARK_PASSWORD), (POSTMARK_USER, ""), ("", "")],
)
async def test_wrong_postmark_credentials_are_401(
    app: FastAPI, client: httpx.AsyncClient, user: str, password: str
) -> None:
    claim = await new_claim(app)
    payload = postmark(CUSTOMER, claim_address(claim.id))

    async with as_postmark(client, user, password) as postmark_client:
        response = await postmark_client.post("/api/webhook/postmark/inbound", json=payload)

    assert response.status_code == 401
    assert await messages_of(app, claim.id) == []


async def test_basic_credentials_are_postmark_s_only(app: FastAPI, client: httpx.AsyncClient) -> None:
    claim = await new_claim(app)
    payload = generic(CUSTOMER, claim_address(claim.id))

    async with as_postmark(client) as other_client:
        response = await other_client.post("/api/webhook/resend/inbound", json=payload)

    assert response.status_code == 401


@pytest.mark.settings(**{**SETTINGS, "postmark_inbound_password": ""})
async def test_no_configured_password_accepts_no_credentials(app: FastAPI, client: httpx.AsyncClient) -> None:
    claim = await new_claim(app)

    async with as_postmark(client, POSTMARK_USER, "") as postmark_client:
        response = await postmark_client.post(
            "/api/webhook/postmark/inbound", json=postmark(CUSTOMER, claim_address(claim.id))
        )

    assert response.status_code == 401


async def test_mailbox_hash_names_the_claim_when_the_recipients_do_not(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    claim = await new_claim(app)
    inbound_address = f"8f2c4a1b+{claim.id}@inbound.postmarkapp.com"
    payload = postmark(CUSTOMER, inbound_address, text=REPLY)
    payload["ToFull"][0]["MailboxHash"] = payload["MailboxHash"] = str(claim.id)

    async with as_postmark(client) as postmark_client:
        response = await postmark_client.post("/api/webhook/postmark/inbound", json=payload)

    assert response.json()["status"] == "processed", response.text
    assert await bodies_of(app, claim.id) == ["The part fits."]
