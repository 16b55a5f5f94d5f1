"""The Postmark path reads Postmark's inbound JSON only (docs/api.md §10): its Basic credentials, or a
signature for it, must not make the service read another provider's event, least of all a metadata-only
Resend event that would spend the Resend API key. The other paths keep reading all three formats."""

from __future__ import annotations

from collections.abc import Iterator
from email.utils import formatdate
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
    postmark,
    provider_event,
)
from tests.factories.products import create_product
from tests.factories.users import create_supplier, create_user
from tests.helpers import assert_error
from tests.inbound.resend_server import API_KEY, ResendApi
from tests.notifications.servers import free_port

RESEND_PORT = free_port()
CUSTOMER = "ann@example.com"
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
POSTMARK_USER, POSTMARK_PASSWORD = "postmark", "s3cret-inbound-password"

pytestmark = pytest.mark.settings(
    webhook_secret=WEBHOOK_SECRET,
    inbound_secret=RAW_INBOUND_SECRET,
    resend_api_url=f"http://127.0.0.1:{RESEND_PORT}",
    resend_api_key=API_KEY,
    postmark_inbound_user=POSTMARK_USER,
    postmark_inbound_password=POSTMARK_PASSWORD,
)


@pytest.fixture
def resend() -> Iterator[ResendApi]:
    server = ResendApi(RESEND_PORT)
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


def _postmark_client(client: httpx.AsyncClient) -> httpx.AsyncClient:
    url = f"http://{POSTMARK_USER}:{POSTMARK_PASSWORD}@testserver"
    return httpx.AsyncClient(transport=client._transport, base_url=url)


def _metadata_only(resend: ResendApi, claim: Claim) -> dict[str, Any]:
    files = [("bill.pdf", "application/pdf", PDF)]
    email_id = resend.add_email(sender=CUSTOMER, to=[claim_address(claim.id)], text="Fits.", files=files)
    return resend.event(email_id)


def _inline_event(_resend: ResendApi, claim: Claim) -> dict[str, Any]:
    return provider_event(CUSTOMER, [claim_address(claim.id)], text="Fits.")


def _generic(_resend: ResendApi, claim: Claim) -> dict[str, Any]:
    return generic(CUSTOMER, claim_address(claim.id), text="Fits.")


OTHER_FORMATS = {"resend metadata-only": _metadata_only, "resend inline": _inline_event, "generic": _generic}


@pytest.mark.parametrize("build", OTHER_FORMATS.values(), ids=OTHER_FORMATS.keys())
@pytest.mark.parametrize("credentials", ["basic", "signature"])
async def test_the_postmark_path_refuses_other_formats_and_spends_no_resend_key(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi, build: Any, credentials: str
) -> None:
    claim = await _claim(app)
    payload = build(resend, claim)

    if credentials == "basic":
        async with _postmark_client(client) as postmark_client:
            response = await postmark_client.post("/api/webhook/postmark/inbound", json=payload)
    else:
        response = await post_provider(client, payload, provider="postmark")

    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert "Postmark" in body["message"]
    assert resend.requests == []
    assert await _messages(app, claim) == []


async def test_the_postmark_path_still_reads_postmark_s_json(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await _claim(app)
    payload = postmark(CUSTOMER, claim_address(claim.id), text="Fits.") | {"Date": formatdate()}

    async with _postmark_client(client) as postmark_client:
        response = await postmark_client.post("/api/webhook/postmark/inbound", json=payload)

    assert response.json()["status"] == "processed", response.text
    assert resend.requests == []


async def test_a_generic_payload_without_a_body_makes_no_resend_call_on_the_resend_path(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await _claim(app)
    payload = generic(CUSTOMER, claim_address(claim.id), text="", id="4ef9a417")

    response = await post_provider(client, payload)

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "ignored"
    assert resend.requests == []
