"""Providers as they really send (contract 13.3 to 13.6): Resend's metadata-only event completed from its
receiving API (a server on 127.0.0.1 answering as Resend documents), Postmark's unsigned posts with Basic
credentials and MailboxHash, authentication verdicts, and replays of payloads without ids."""

from __future__ import annotations

import base64
import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.models import Claim, Message
from tests.factories.claims import create_claim
from tests.factories.inbound import (
    RAW_INBOUND_SECRET,
    WEBHOOK_SECRET,
    claim_address,
    generic,
    post_provider,
    post_standard,
    postmark,
    provider_event,
)
from tests.factories.products import create_product
from tests.factories.users import create_supplier, create_user
from tests.helpers import assert_error
from tests.inbound.resend_server import API_KEY, ResendApi, tls_contexts
from tests.notifications.servers import free_port

RESEND_PORT = free_port()
CLOSED_PORT = free_port()  # nothing listens there
CUSTOMER = "ann@example.com"
REPLY = (
    "The part fits.\n\nOn Tue, Nov 24, 2026 at 10:00 AM Warranty <notifications@warranty.local> wrote:\n> Hi"
)
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
POSTMARK_USER, POSTMARK_PASSWORD = "postmark", "s3cret-inbound-password"

SETTINGS: dict[str, Any] = {
    "webhook_secret": WEBHOOK_SECRET,
    "inbound_secret": RAW_INBOUND_SECRET,
    "resend_api_url": f"http://127.0.0.1:{RESEND_PORT}",
    "resend_api_key": API_KEY,
    "resend_timeout": 1.0,
    "postmark_inbound_user": POSTMARK_USER,
    "postmark_inbound_password": POSTMARK_PASSWORD,
    "webhook_allow_private": True,  # the stand-in's files are on localhost
}
pytestmark = pytest.mark.settings(**SETTINGS)


@pytest.fixture
def resend(monkeypatch: pytest.MonkeyPatch) -> Iterator[ResendApi]:
    server_tls, client_tls = tls_contexts()  # Resend's files are on https
    monkeypatch.setattr("app.inbound.downloads._tls", lambda: client_tls)
    server = ResendApi(RESEND_PORT, files_tls=server_tls)
    server.start()
    yield server
    server.stop()


async def _claim(app: FastAPI) -> Claim:
    customer = await create_user(app, email=CUSTOMER, name="Ann")
    supplier = await create_supplier(app, email="sam@supplier.example", name="Sam")
    return await create_claim(app, await create_product(app, customer), supplier=supplier)


async def _messages(app: FastAPI, claim: Claim) -> list[Message]:
    async with app.state.sessionmaker() as session:
        return list(await session.scalars(select(Message).where(Message.claim_id == claim.id)))


def _resend_email(resend: ResendApi, claim: Claim, **fields: Any) -> str:
    fields.setdefault("text", REPLY)
    return resend.add_email(sender=f"Ann <{CUSTOMER}>", to=[claim_address(claim.id)], **fields)


# --- Resend: metadata-only events (13.3)


async def test_a_metadata_only_resend_event_becomes_a_message_with_its_attachment(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await _claim(app)
    email_id = _resend_email(
        resend, claim, files=[("notes.txt", "text/plain", b"x"), ("bill.pdf", "application/pdf", PDF)]
    )
    event = resend.event(email_id)
    assert "text" not in event["data"] and "html" not in event["data"]

    response = await post_standard(client, event)

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "processed"
    [message] = await _messages(app, claim)
    assert message.body == "The part fits."
    assert (message.attachment_name, message.attachment_mime, message.attachment_size) == (
        "bill.pdf",
        "application/pdf",
        len(PDF),
    )
    assert await app.state.storage.read(message.attachment_key) == PDF
    api_calls = [auth for path, auth in resend.requests if path.startswith("/emails/")]
    assert api_calls and all(auth == f"Bearer {API_KEY}" for auth in api_calls)
    downloads = [auth for path, auth in resend.requests if path.startswith("/files/")]
    assert downloads == [None]  # the pre-signed link gets no API key


async def test_the_fetched_headers_count_for_automated_mail(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await _claim(app)
    email_id = _resend_email(resend, claim, headers={"Auto-Submitted": "auto-replied"})

    response = await post_standard(client, resend.event(email_id))

    assert response.json() == {"status": "ignored"}
    assert await _messages(app, claim) == []


async def test_an_email_resend_does_not_know_is_ignored(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await _claim(app)
    event = resend.event(_resend_email(resend, claim))
    resend.emails.clear()

    response = await post_standard(client, event)

    assert response.status_code == 200
    assert response.json() == {"status": "ignored"}
    assert await _messages(app, claim) == []


@pytest.mark.parametrize("status", [500, 502, 503, 429, 401])
async def test_resend_failing_is_a_503_and_the_redelivery_succeeds(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi, status: int
) -> None:
    claim = await _claim(app)
    event = resend.event(_resend_email(resend, claim))
    resend.fail_with = status

    failed = await post_standard(client, event)

    assert_error(failed, 503, "SERVICE_UNAVAILABLE")
    assert int(failed.headers["Retry-After"]) > 0
    assert await _messages(app, claim) == []
    resend.fail_with = None
    retried = await post_standard(client, event)  # Resend retries a failed webhook
    assert retried.json()["status"] == "processed"
    assert len(await _messages(app, claim)) == 1


async def test_resend_too_slow_is_a_503(app: FastAPI, client: httpx.AsyncClient, resend: ResendApi) -> None:
    claim = await _claim(app)
    event = resend.event(_resend_email(resend, claim))
    resend.delay = 2.0  # the test settings wait 1 s

    response = await post_standard(client, event)

    assert_error(response, 503, "SERVICE_UNAVAILABLE")
    assert await _messages(app, claim) == []


@pytest.mark.settings(**{**SETTINGS, "resend_api_url": f"http://127.0.0.1:{CLOSED_PORT}"})
async def test_resend_unreachable_is_a_503(app: FastAPI, client: httpx.AsyncClient) -> None:
    claim = await _claim(app)
    event = provider_event(CUSTOMER, [claim_address(claim.id)])
    del event["data"]["text"], event["data"]["html"]

    response = await post_standard(client, event)

    assert_error(response, 503, "SERVICE_UNAVAILABLE")


@pytest.mark.settings(**{**SETTINGS, "resend_api_key": ""})
async def test_without_an_api_key_a_metadata_only_event_is_ignored_with_a_warning(
    app: FastAPI, client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    claim = await _claim(app)
    event = provider_event(CUSTOMER, [claim_address(claim.id)])
    del event["data"]["text"], event["data"]["html"]

    with caplog.at_level(logging.WARNING, logger="warranty.inbound"):
        response = await post_standard(client, event)

    assert response.status_code == 200
    assert response.json() == {"status": "ignored", "reason": "resend_api_key_missing"}
    assert any("WARRANTY_RESEND_API_KEY" in record.getMessage() for record in caplog.records)
    assert await _messages(app, claim) == []


async def test_an_event_with_its_body_inlined_needs_no_api_call(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await _claim(app)

    response = await post_standard(client, provider_event(CUSTOMER, [claim_address(claim.id)], text=REPLY))

    assert response.json()["status"] == "processed"
    assert resend.requests == []


# --- Postmark: Basic credentials and MailboxHash (13.4)


def _postmark_client(client: httpx.AsyncClient, user: str, password: str) -> httpx.AsyncClient:
    # Postmark sends the credentials written in the webhook URL (https://user:password@host/...).
    return httpx.AsyncClient(transport=client._transport, base_url=f"http://{user}:{password}@testserver")


async def test_an_unsigned_postmark_post_with_basic_credentials_becomes_a_message_with_attachment(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    claim = await _claim(app)
    content = base64.b64encode(PDF).decode()
    attachment = {
        "Name": "bill.pdf",
        "Content": content,
        "ContentType": "application/pdf",
        "ContentLength": len(PDF),
    }
    payload = postmark(CUSTOMER, claim_address(claim.id), text=REPLY, attachments=[attachment])

    async with _postmark_client(client, POSTMARK_USER, POSTMARK_PASSWORD) as postmark_client:
        response = await postmark_client.post("/api/webhook/postmark/inbound", json=payload)

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "processed"
    [message] = await _messages(app, claim)
    assert (message.body, message.attachment_name) == ("The part fits.", "bill.pdf")


@pytest.mark.parametrize(
    ("user", "password"),
    [(POSTMARK_USER, "wrong"), ("someone", POSTMARK_PASSWORD), (POSTMARK_USER, ""), ("", "")],
)
async def test_wrong_postmark_credentials_are_401(
    app: FastAPI, client: httpx.AsyncClient, user: str, password: str
) -> None:
    claim = await _claim(app)
    payload = postmark(CUSTOMER, claim_address(claim.id))

    async with _postmark_client(client, user, password) as postmark_client:
        response = await postmark_client.post("/api/webhook/postmark/inbound", json=payload)

    assert response.status_code == 401
    assert await _messages(app, claim) == []


async def test_basic_credentials_are_postmark_s_only(app: FastAPI, client: httpx.AsyncClient) -> None:
    claim = await _claim(app)
    payload = generic(CUSTOMER, claim_address(claim.id))

    async with _postmark_client(client, POSTMARK_USER, POSTMARK_PASSWORD) as other_client:
        response = await other_client.post("/api/webhook/resend/inbound", json=payload)

    assert response.status_code == 401


@pytest.mark.settings(**{**SETTINGS, "postmark_inbound_password": ""})
async def test_no_configured_password_accepts_no_credentials(app: FastAPI, client: httpx.AsyncClient) -> None:
    claim = await _claim(app)

    async with _postmark_client(client, POSTMARK_USER, "") as postmark_client:
        response = await postmark_client.post(
            "/api/webhook/postmark/inbound", json=postmark(CUSTOMER, claim_address(claim.id))
        )

    assert response.status_code == 401


async def test_mailbox_hash_names_the_claim_when_the_recipients_do_not(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    claim = await _claim(app)
    inbound_address = f"8f2c4a1b+{claim.id}@inbound.postmarkapp.com"
    payload = postmark(CUSTOMER, inbound_address, text=REPLY)
    payload["ToFull"][0]["MailboxHash"] = payload["MailboxHash"] = str(claim.id)

    async with _postmark_client(client, POSTMARK_USER, POSTMARK_PASSWORD) as postmark_client:
        response = await postmark_client.post("/api/webhook/postmark/inbound", json=payload)

    assert response.json()["status"] == "processed", response.text
    assert [message.body for message in await _messages(app, claim)] == ["The part fits."]


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
    if fmt == "postmark":
        listed = [{"Name": name, "Value": value} for name, value in headers.items()]
        return postmark(CUSTOMER, claim_address(claim.id), text=REPLY, headers=listed)
    if fmt == "provider":
        return provider_event(CUSTOMER, [claim_address(claim.id)], text=REPLY, headers=headers)
    return generic(CUSTOMER, claim_address(claim.id), text=REPLY, headers=headers)


@pytest.mark.parametrize("fmt", ["provider", "postmark", "generic"])
@pytest.mark.parametrize("headers", FORGED, ids=range(len(FORGED)))
async def test_a_forged_sender_is_not_posted(
    app: FastAPI,
    client: httpx.AsyncClient,
    fmt: str,
    headers: dict[str, str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    claim = await _claim(app)

    with caplog.at_level(logging.WARNING, logger="warranty.inbound"):
        response = await post_standard(client, _with_headers(fmt, claim, headers))

    assert response.status_code == 200
    assert response.json() == {"status": "ignored", "reason": "sender_not_authenticated"}
    assert await _messages(app, claim) == []
    assert any("authentication" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("headers", GENUINE, ids=range(len(GENUINE)))
async def test_a_sender_the_verdicts_do_not_condemn_is_posted(
    app: FastAPI, client: httpx.AsyncClient, headers: dict[str, str]
) -> None:
    claim = await _claim(app)

    response = await post_standard(client, _with_headers("generic", claim, headers))

    assert response.json()["status"] == "processed"


async def test_resend_fetched_verdicts_count_too(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await _claim(app)
    email_id = _resend_email(resend, claim, headers={"Authentication-Results": "mx.resend.com; dmarc=fail"})

    response = await post_standard(client, resend.event(email_id))

    assert response.json() == {"status": "ignored", "reason": "sender_not_authenticated"}


# --- Replays without ids (13.6)


async def test_a_replayed_payload_without_ids_makes_one_message(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    claim = await _claim(app)
    payload = generic(CUSTOMER, claim_address(claim.id), text=REPLY)  # no id, no Message-ID

    answers = [(await post_provider(client, payload)).json()["status"] for _ in range(3)]

    assert answers == ["processed", "duplicate", "duplicate"]
    assert len(await _messages(app, claim)) == 1


async def test_different_replies_without_ids_are_each_posted(app: FastAPI, client: httpx.AsyncClient) -> None:
    claim = await _claim(app)

    for text in ("First answer.", "Second answer."):
        response = await post_provider(client, generic(CUSTOMER, claim_address(claim.id), text=text))
        assert response.json()["status"] == "processed"

    assert sorted(message.body for message in await _messages(app, claim)) == [
        "First answer.",
        "Second answer.",
    ]
