"""Resend's receiving API (app/inbound/resend.py), against a stand-in on 127.0.0.1 answering as Resend
documents: a metadata-only event completed with its body, headers and first allowed attachment (the
link fetched without the API key); an email Resend does not know ignored; Resend failing, slow or
unreachable a 503 so that it retries; and what a hostile event or answer can make the service fetch: ids
that are not ids reach no endpoint, and answers are read up to their limit and no further."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.models import Claim
from tests.factories.inbound import SECRETS, claim_address, post_provider, post_standard, provider_event
from tests.helpers import assert_error
from tests.inbound.resend_server import API_KEY, Flood, ResendApi
from tests.inbound.support import (
    CUSTOMER,
    HUNG_UP_BY,
    REPLY,
    RESEND,
    SMALL,
    WITH_RESEND,
    emailed_bill,
    messages_of,
    new_claim,
)
from tests.support.pdf import PDF_BYTES
from tests.support.ports import free_port

CLOSED_PORT = free_port()  # nothing listens there

SETTINGS: dict[str, Any] = {**SECRETS, **RESEND, "resend_timeout": 5.0}
pytestmark = pytest.mark.settings(**SETTINGS)


# --- Metadata-only events completed from the API (contract 13.3)


def _resend_email(resend: ResendApi, claim: Claim, **fields: Any) -> str:
    fields.setdefault("text", REPLY)
    return resend.add_email(sender=f"Ann <{CUSTOMER}>", to=[claim_address(claim.id)], **fields)


@pytest.mark.settings(**WITH_RESEND)
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


@pytest.mark.settings(**WITH_RESEND)
async def test_the_fetched_headers_count_for_automated_mail(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await new_claim(app)
    email_id = _resend_email(resend, claim, headers={"Auto-Submitted": "auto-replied"})

    response = await post_standard(client, resend.event(email_id))

    assert response.json() == {"status": "ignored"}
    assert await messages_of(app, claim.id) == []


@pytest.mark.settings(**WITH_RESEND)
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


@pytest.mark.settings(**WITH_RESEND)
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


@pytest.mark.settings(**WITH_RESEND)
async def test_resend_too_slow_is_a_503(app: FastAPI, client: httpx.AsyncClient, resend: ResendApi) -> None:
    claim = await new_claim(app)
    event = resend.event(_resend_email(resend, claim))
    resend.delay = 2.0  # the test settings wait 1 s

    response = await post_standard(client, event)

    assert_error(response, 503, "SERVICE_UNAVAILABLE")
    assert await messages_of(app, claim.id) == []


@pytest.mark.settings(**{**WITH_RESEND, "resend_api_url": f"http://127.0.0.1:{CLOSED_PORT}"})
async def test_resend_unreachable_is_a_503(app: FastAPI, client: httpx.AsyncClient) -> None:
    claim = await new_claim(app)
    event = provider_event(CUSTOMER, [claim_address(claim.id)])
    del event["data"]["text"], event["data"]["html"]

    response = await post_standard(client, event)

    assert_error(response, 503, "SERVICE_UNAVAILABLE")


@pytest.mark.settings(**WITH_RESEND)
async def test_resend_fetched_verdicts_count_too(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await new_claim(app)
    email_id = _resend_email(resend, claim, headers={"Authentication-Results": "mx.resend.com; dmarc=fail"})

    response = await post_standard(client, resend.event(email_id))

    assert response.json() == {"status": "ignored", "reason": "sender_not_authenticated"}


# --- Ids are not paths

NOT_IDS = [
    "../../api-keys?x=",
    "../api-keys",
    "..",
    "a/b",
    "%2e%2e%2fapi-keys",
    "id#fragment",
    "id?query=1",
    "a b",
    "ünïcode",
    "x" * 101,
]


@pytest.mark.parametrize("path", ["standard", "resend"])
@pytest.mark.parametrize("email_id", NOT_IDS, ids=range(len(NOT_IDS)))
async def test_an_email_id_that_is_not_an_id_reaches_no_resend_endpoint(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi, email_id: str, path: str
) -> None:
    claim = await new_claim(app)
    event = resend.event(emailed_bill(resend, claim))
    event["data"]["email_id"] = email_id

    response = await (post_standard(client, event) if path == "standard" else post_provider(client, event))

    assert response.status_code == 200, response.text
    assert response.json() == {"status": "ignored", "reason": "invalid_provider_id"}
    assert resend.requests == []
    assert await messages_of(app, claim.id) == []


@pytest.mark.parametrize("email_id", ["a" * 100, "re_AbC-12_x", "4ef9a417-02e9-4d39-ad75-9611e0fcc33c"])
async def test_ids_of_letters_digits_dashes_and_underscores_are_fetched(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi, email_id: str
) -> None:
    claim = await new_claim(app)

    response = await post_standard(client, resend.event(emailed_bill(resend, claim, email_id=email_id)))

    assert response.json()["status"] == "processed", response.text
    assert resend.requests[0][0] == f"/emails/receiving/{email_id}"


async def test_an_attachment_id_that_is_not_an_id_is_not_requested(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await new_claim(app)
    email_id = emailed_bill(resend, claim)
    resend.emails[email_id]["attachments"][0]["id"] = "../../../api-keys?x="

    response = await post_standard(client, resend.event(email_id))

    assert response.json()["status"] == "processed", response.text
    [message] = await messages_of(app, claim.id)
    assert (message.body, message.attachment_key) == ("Fits.", None)
    assert [path for path, _auth in resend.requests] == [f"/emails/receiving/{email_id}"]


# --- Answers are read up to their limit, never whole first


@pytest.mark.settings(**SETTINGS, max_body_size=SMALL)
@pytest.mark.parametrize("flood", ["chunked", "lying"])
@pytest.mark.parametrize("answer", ["email", "attachment"])
async def test_an_oversized_api_answer_is_a_503_and_is_not_read_to_its_end(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi, answer: str, flood: Flood
) -> None:
    claim = await new_claim(app)
    resend.oversized[answer] = flood

    response = await post_standard(client, resend.event(emailed_bill(resend, claim)))

    assert_error(response, 503, "SERVICE_UNAVAILABLE")  # like any unreadable answer: Resend retries
    assert resend.sent < HUNG_UP_BY
    assert await messages_of(app, claim.id) == []
