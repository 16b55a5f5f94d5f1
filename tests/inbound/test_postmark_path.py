"""The Postmark path reads Postmark's inbound JSON only (docs/api.md §10): its Basic credentials, or a
signature for it, must not make the service read another provider's event, least of all a metadata-only
Resend event that would spend the Resend API key. The other paths keep reading all three formats."""

from __future__ import annotations

from email.utils import formatdate
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.models import Claim
from tests.factories.inbound import SECRETS, claim_address, generic, post_provider, postmark, provider_event
from tests.helpers import assert_error
from tests.inbound.resend_server import ResendApi
from tests.inbound.support import CUSTOMER, POSTMARK, RESEND, as_postmark, messages_of, new_claim
from tests.support.pdf import PDF_BYTES

pytestmark = pytest.mark.settings(**SECRETS, **RESEND, **POSTMARK)


def _metadata_only(resend: ResendApi, claim: Claim) -> dict[str, Any]:
    files = [("bill.pdf", "application/pdf", PDF_BYTES)]
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
    claim = await new_claim(app)
    payload = build(resend, claim)

    if credentials == "basic":
        async with as_postmark(client) as postmark_client:
            response = await postmark_client.post("/api/webhook/postmark/inbound", json=payload)
    else:
        response = await post_provider(client, payload, provider="postmark")

    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert "Postmark" in body["message"]
    assert resend.requests == []
    assert await messages_of(app, claim.id) == []


async def test_the_postmark_path_still_reads_postmark_s_json(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await new_claim(app)
    payload = postmark(CUSTOMER, claim_address(claim.id), text="Fits.") | {"Date": formatdate()}

    async with as_postmark(client) as postmark_client:
        response = await postmark_client.post("/api/webhook/postmark/inbound", json=payload)

    assert response.json()["status"] == "processed", response.text
    assert resend.requests == []


async def test_a_generic_payload_without_a_body_makes_no_resend_call_on_the_resend_path(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await new_claim(app)
    payload = generic(CUSTOMER, claim_address(claim.id), text="", id="4ef9a417")

    response = await post_provider(client, payload)

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "ignored"
    assert resend.requests == []
