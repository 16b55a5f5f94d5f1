"""What a hostile event, or a hostile answer, can make the service fetch from Resend (docs/api.md §10):
ids that are not ids reach no endpoint, a `download_url` obeys the outbound address rules (https, public
addresses, the checked address connected), and answers are read up to their limit and no further."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.models import Claim
from tests.factories.inbound import SECRETS, claim_address, post_provider, post_standard
from tests.helpers import assert_error
from tests.inbound.resend_server import FLOOD, Flood, ResendApi
from tests.inbound.support import CUSTOMER, RESEND, messages_of, new_claim
from tests.support.pdf import PDF_BYTES

SMALL = 256 * 1024  # the answer limits these tests set
HUNG_UP_BY = FLOOD // 2  # a reader that stops at its limit leaves most of a flood unsent

SETTINGS: dict[str, Any] = {**SECRETS, **RESEND, "resend_timeout": 5.0}
pytestmark = pytest.mark.settings(**SETTINGS)


@pytest.fixture
def dialled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The hosts the service's HTTP clients connect to; anything beyond this machine is refused unsent."""
    hosts: list[str] = []
    send = httpx.AsyncHTTPTransport.handle_async_request

    async def guarded(transport: httpx.AsyncHTTPTransport, request: httpx.Request) -> httpx.Response:
        hosts.append(request.url.host)
        if request.url.host not in ("127.0.0.1", "::1", "localhost"):
            raise httpx.ConnectError("the test lets no request leave this machine", request=request)
        return await send(transport, request)

    monkeypatch.setattr(httpx.AsyncHTTPTransport, "handle_async_request", guarded)
    return hosts


def _email(resend: ResendApi, claim: Claim, **fields: Any) -> str:
    fields.setdefault("files", [("bill.pdf", "application/pdf", PDF_BYTES)])
    return resend.add_email(sender=f"Ann <{CUSTOMER}>", to=[claim_address(claim.id)], text="Fits.", **fields)


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
    event = resend.event(_email(resend, claim))
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

    response = await post_standard(client, resend.event(_email(resend, claim, email_id=email_id)))

    assert response.json()["status"] == "processed", response.text
    assert resend.requests[0][0] == f"/emails/receiving/{email_id}"


async def test_an_attachment_id_that_is_not_an_id_is_not_requested(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await new_claim(app)
    email_id = _email(resend, claim)
    resend.emails[email_id]["attachments"][0]["id"] = "../../../api-keys?x="

    response = await post_standard(client, resend.event(email_id))

    assert response.json()["status"] == "processed", response.text
    [message] = await messages_of(app, claim.id)
    assert (message.body, message.attachment_key) == ("Fits.", None)
    assert [path for path, _auth in resend.requests] == [f"/emails/receiving/{email_id}"]


# --- download_url: https, and the outbound address rules


async def test_an_https_download_url_on_an_allowed_address_is_fetched_with_the_host_name_kept(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi, dialled: list[str]
) -> None:
    claim = await new_claim(app)

    response = await post_standard(client, resend.event(_email(resend, claim)))

    assert response.json()["status"] == "processed", response.text
    [message] = await messages_of(app, claim.id)
    assert await app.state.storage.read(message.attachment_key) == PDF_BYTES
    assert "localhost" not in dialled  # the checked address is connected, the name kept for TLS


STRICT = pytest.mark.settings(**{**SETTINGS, "webhook_allow_private": False})
REFUSED = [
    pytest.param("http://127.0.0.1:{api_port}", id="http on an allowed address"),
    pytest.param("ftp://127.0.0.1:{api_port}", id="not http"),
    pytest.param("https://localhost:{files_port}", id="loopback", marks=STRICT),
    pytest.param("https://127.0.0.1:{files_port}", id="loopback by address", marks=STRICT),
    pytest.param("https://[::ffff:127.0.0.1]:{files_port}", id="IPv4-mapped loopback", marks=STRICT),
    pytest.param("https://169.254.169.254", id="metadata service", marks=STRICT),
    pytest.param("https://10.0.0.7", id="private", marks=STRICT),
]


@pytest.mark.parametrize("base", REFUSED)
async def test_a_refused_download_url_is_not_requested_and_the_text_is_posted(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi, dialled: list[str], base: str
) -> None:
    claim = await new_claim(app)
    resend.download_base = base.format(api_port=resend.port, files_port=resend.files_port)

    response = await post_standard(client, resend.event(_email(resend, claim)))

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "processed"
    [message] = await messages_of(app, claim.id)
    assert (message.body, message.attachment_key) == ("Fits.", None)
    assert not [path for path, _auth in resend.requests if path.startswith("/files/")]
    assert set(dialled) == {"127.0.0.1"}  # Resend's API (the stand-in) only


# --- Answers are read up to their limit, never whole first


@pytest.mark.settings(**SETTINGS, max_body_size=SMALL)
@pytest.mark.parametrize("flood", ["chunked", "lying"])
@pytest.mark.parametrize("answer", ["email", "attachment"])
async def test_an_oversized_api_answer_is_a_503_and_is_not_read_to_its_end(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi, answer: str, flood: Flood
) -> None:
    claim = await new_claim(app)
    resend.oversized[answer] = flood

    response = await post_standard(client, resend.event(_email(resend, claim)))

    assert_error(response, 503, "SERVICE_UNAVAILABLE")  # like any unreadable answer: Resend retries
    assert resend.sent < HUNG_UP_BY
    assert await messages_of(app, claim.id) == []


@pytest.mark.settings(**SETTINGS, max_inbound_attachment_size=SMALL)
@pytest.mark.parametrize("flood", ["chunked", "lying"])
async def test_an_oversized_file_is_dropped_and_is_not_read_to_its_end(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi, flood: Flood
) -> None:
    claim = await new_claim(app)
    resend.oversized["file"] = flood

    response = await post_standard(client, resend.event(_email(resend, claim)))

    assert response.json()["status"] == "processed", response.text
    [message] = await messages_of(app, claim.id)
    assert (message.body, message.attachment_key) == ("Fits.", None)
    assert resend.sent < HUNG_UP_BY
