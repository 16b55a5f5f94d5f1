"""Providers as they really send (contract 13.3 to 13.6): Resend's metadata-only event completed from its
receiving API (a server on 127.0.0.1 answering as Resend documents), Postmark's unsigned posts with Basic
credentials and MailboxHash, authentication verdicts, and replays of payloads without ids."""

from __future__ import annotations

import base64
import logging
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.models import Claim
from tests.factories.inbound import (
    FORMATS,
    SECRETS,
    claim_address,
    email_in,
    generic,
    post_provider,
    post_standard,
    postmark,
    provider_event,
)
from tests.helpers import assert_error
from tests.inbound.resend_server import API_KEY, ResendApi
from tests.inbound.support import (
    CUSTOMER,
    POSTMARK,
    POSTMARK_PASSWORD,
    POSTMARK_USER,
    RESEND,
    as_postmark,
    bodies_of,
    messages_of,
    new_claim,
)
from tests.support.pdf import PDF_BYTES
from tests.support.ports import free_port

CLOSED_PORT = free_port()  # nothing listens there
REPLY = (
    "The part fits.\n\nOn Tue, Nov 24, 2026 at 10:00 AM Warranty <notifications@warranty.local> wrote:\n> Hi"
)

SETTINGS: dict[str, Any] = {**SECRETS, **RESEND, **POSTMARK, "resend_timeout": 1.0}
pytestmark = pytest.mark.settings(**SETTINGS)


def _resend_email(resend: ResendApi, claim: Claim, **fields: Any) -> str:
    fields.setdefault("text", REPLY)
    return resend.add_email(sender=f"Ann <{CUSTOMER}>", to=[claim_address(claim.id)], **fields)


# --- Resend: metadata-only events (13.3)


async def test_a_metadata_only_resend_event_becomes_a_message_with_its_attachment(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await new_claim(app)
    email_id = _resend_email(
        resend, claim, files=[("notes.txt", "text/plain", b"x"), ("bill.pdf", "application/pdf", PDF_BYTES)]
    )
    event = resend.event(email_id)
    assert "text" not in event["data"] and "html" not in event["data"]

    response = await post_standard(client, event)

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "processed"
    [message] = await messages_of(app, claim.id)
    assert message.body == "The part fits."
    assert (message.attachment_name, message.attachment_mime, message.attachment_size) == (
        "bill.pdf",
        "application/pdf",
        len(PDF_BYTES),
    )
    assert await app.state.storage.read(message.attachment_key) == PDF_BYTES
    api_calls = [auth for path, auth in resend.requests if path.startswith("/emails/")]
    assert api_calls and all(auth == f"Bearer {API_KEY}" for auth in api_calls)
    downloads = [auth for path, auth in resend.requests if path.startswith("/files/")]
    assert downloads == [None]  # the pre-signed link gets no API key


async def test_the_fetched_headers_count_for_automated_mail(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await new_claim(app)
    email_id = _resend_email(resend, claim, headers={"Auto-Submitted": "auto-replied"})

    response = await post_standard(client, resend.event(email_id))

    assert response.json() == {"status": "ignored"}
    assert await messages_of(app, claim.id) == []


async def test_an_email_resend_does_not_know_is_ignored(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await new_claim(app)
    event = resend.event(_resend_email(resend, claim))
    resend.emails.clear()

    response = await post_standard(client, event)

    assert response.status_code == 200
    assert response.json() == {"status": "ignored"}
    assert await messages_of(app, claim.id) == []


@pytest.mark.parametrize("status", [500, 502, 503, 429, 401])
async def test_resend_failing_is_a_503_and_the_redelivery_succeeds(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi, status: int
) -> None:
    claim = await new_claim(app)
    event = resend.event(_resend_email(resend, claim))
    resend.fail_with = status

    failed = await post_standard(client, event)

    assert_error(failed, 503, "SERVICE_UNAVAILABLE")
    assert int(failed.headers["Retry-After"]) > 0
    assert await messages_of(app, claim.id) == []
    resend.fail_with = None
    retried = await post_standard(client, event)  # Resend retries a failed webhook
    assert retried.json()["status"] == "processed"
    assert len(await messages_of(app, claim.id)) == 1


async def test_resend_too_slow_is_a_503(app: FastAPI, client: httpx.AsyncClient, resend: ResendApi) -> None:
    claim = await new_claim(app)
    event = resend.event(_resend_email(resend, claim))
    resend.delay = 2.0  # the test settings wait 1 s

    response = await post_standard(client, event)

    assert_error(response, 503, "SERVICE_UNAVAILABLE")
    assert await messages_of(app, claim.id) == []


@pytest.mark.settings(**{**SETTINGS, "resend_api_url": f"http://127.0.0.1:{CLOSED_PORT}"})
async def test_resend_unreachable_is_a_503(app: FastAPI, client: httpx.AsyncClient) -> None:
    claim = await new_claim(app)
    event = provider_event(CUSTOMER, [claim_address(claim.id)])
    del event["data"]["text"], event["data"]["html"]

    response = await post_standard(client, event)

    assert_error(response, 503, "SERVICE_UNAVAILABLE")


@pytest.mark.settings(**{**SETTINGS, "resend_api_key": ""})
async def test_without_an_api_key_a_metadata_only_event_is_ignored_with_a_warning(
    app: FastAPI, client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    claim = await new_claim(app)
    event = provider_event(CUSTOMER, [claim_address(claim.id)])
    del event["data"]["text"], event["data"]["html"]

    with caplog.at_level(logging.WARNING, logger="warranty.inbound"):
        response = await post_standard(client, event)

    assert response.status_code == 200
    assert response.json() == {"status": "ignored", "reason": "resend_api_key_missing"}
    assert any("WARRANTY_RESEND_API_KEY" in record.getMessage() for record in caplog.records)
    assert await messages_of(app, claim.id) == []


async def test_an_event_with_its_body_inlined_needs_no_api_call(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await new_claim(app)

    response = await post_standard(client, provider_event(CUSTOMER, [claim_address(claim.id)], text=REPLY))

    assert response.json()["status"] == "processed"
    assert resend.requests == []


# --- Postmark: Basic credentials and MailboxHash (13.4)


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


# --- Sender authentication (13.5)

FORGED = [
    {"Authentication-Results": "mx.google.com; dkim=fail header.i=@x.example; spf=fail; dmarc=fail (p=NONE)"},
    {"Authentication-Results": "mx.example.net; dmarc=fail (p=reject dis=none) header.from=example.com"},
    {"Authentication-Results": "mx.example.net; spf=softfail smtp.mailfrom=example.com; dkim=fail"},
    {"Received-SPF": "fail (domain does not designate 203.0.113.9 as permitted sender)",
     "ARC-Authentication-Results": "i=1; mx.example.net; dkim=fail header.d=example.com"},
]  # fmt: skip
GENUINE = [
    {"Authentication-Results": "mx.google.com; dkim=pass header.i=@example.com; spf=pass; dmarc=pass"},
    {"Authentication-Results": "mx.example.net; spf=fail smtp.mailfrom=example.com; dkim=pass"},
    {"Authentication-Results": "mx.example.net; spf=softfail; dkim=fail; dkim=pass header.d=example.com"},
    {"Authentication-Results": "mx.example.net; dkim=fail; spf=pass"},
]  # fmt: skip


def _with_headers(fmt: str, claim: Claim, headers: dict[str, str]) -> dict[str, Any]:
    return email_in(fmt, CUSTOMER, claim_address(claim.id), text=REPLY, headers=headers)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("headers", FORGED, ids=range(len(FORGED)))
async def test_a_forged_sender_is_not_posted(
    app: FastAPI,
    client: httpx.AsyncClient,
    fmt: str,
    headers: dict[str, str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    claim = await new_claim(app)

    with caplog.at_level(logging.WARNING, logger="warranty.inbound"):
        response = await post_standard(client, _with_headers(fmt, claim, headers))

    assert response.status_code == 200
    assert response.json() == {"status": "ignored", "reason": "sender_not_authenticated"}
    assert await messages_of(app, claim.id) == []
    assert any("authentication" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("headers", GENUINE, ids=range(len(GENUINE)))
async def test_a_sender_the_verdicts_do_not_condemn_is_posted(
    app: FastAPI, client: httpx.AsyncClient, headers: dict[str, str]
) -> None:
    claim = await new_claim(app)

    response = await post_standard(client, _with_headers("generic", claim, headers))

    assert response.json()["status"] == "processed"


async def test_resend_fetched_verdicts_count_too(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await new_claim(app)
    email_id = _resend_email(resend, claim, headers={"Authentication-Results": "mx.resend.com; dmarc=fail"})

    response = await post_standard(client, resend.event(email_id))

    assert response.json() == {"status": "ignored", "reason": "sender_not_authenticated"}


# --- Replays without ids (13.6)


async def test_a_replayed_payload_without_ids_makes_one_message(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    claim = await new_claim(app)
    payload = generic(CUSTOMER, claim_address(claim.id), text=REPLY)  # no id, no Message-ID

    answers = [(await post_provider(client, payload)).json()["status"] for _ in range(3)]

    assert answers == ["processed", "duplicate", "duplicate"]
    assert len(await messages_of(app, claim.id)) == 1


async def test_different_replies_without_ids_are_each_posted(app: FastAPI, client: httpx.AsyncClient) -> None:
    claim = await new_claim(app)

    for text in ("First answer.", "Second answer."):
        response = await post_provider(client, generic(CUSTOMER, claim_address(claim.id), text=text))
        assert response.json()["status"] == "processed"

    assert sorted(message.body for message in await messages_of(app, claim.id)) == [
        "First answer.",
        "Second answer.",
    ]
