from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from app.core.clock import frozen_time
from tests.factories.inbound import (
    RAW_INBOUND_SECRET,
    SECRETS,
    WEBHOOK_SECRET,
    WHSEC_KEY,
    WHSEC_SECRET,
    body_of,
    provider_headers,
    standard_headers,
    standard_signature,
)
from tests.helpers import assert_error

pytestmark = pytest.mark.settings(**SECRETS)

NOW = datetime(2026, 1, 5, 10, 13, tzinfo=UTC)
TS = int(NOW.timestamp())
# A delivery the service accepts and ignores: the signature is all these tests are about.
IGNORABLE = {"type": "email.delivered", "data": {"email_id": "e-1"}}
BODY = body_of(IGNORABLE)
# Postmark's path reads Postmark's JSON only: a bounce, which it ignores.
POSTMARK_BODY = body_of({"FromFull": {"Email": "mailer-daemon@example.com"}, "TextBody": "Undeliverable"})


def assert_refused(response: httpx.Response) -> None:
    body = assert_error(response, 401, "WEBHOOK_SIGNATURE_INVALID")
    assert body["error"] == "Unauthorized"
    assert response.headers["www-authenticate"] == "Bearer"


async def post_standard(
    client: httpx.AsyncClient, headers: dict[str, str], body: bytes = BODY
) -> httpx.Response:
    with frozen_time(NOW):
        return await client.post("/api/inbound/email", content=body, headers=headers)


# --- {Provider}-Signature --------------------------------------------------------------------------------


@pytest.mark.parametrize(("provider", "body"), [("resend", BODY), ("postmark", POSTMARK_BODY)])
async def test_provider_signature_is_accepted(client: httpx.AsyncClient, provider: str, body: bytes) -> None:
    response = await client.post(
        f"/api/webhook/{provider}/inbound", content=body, headers=provider_headers(body, provider)
    )

    assert response.status_code == 200, response.text
    assert response.json() == {"status": "ignored"}


@pytest.mark.parametrize("header", ["Resend-Signature", "resend-signature", "RESEND-SIGNATURE"])
async def test_provider_signature_header_name_is_case_insensitive(
    client: httpx.AsyncClient, header: str
) -> None:
    signature = provider_headers(BODY)["Resend-Signature"]

    response = await client.post("/api/webhook/resend/inbound", content=BODY, headers={header: signature})

    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Resend-Signature": ""},
        {"Resend-Signature": "not-hex-at-all"},
        {"Resend-Signature": "00" * 32},
        {"Resend-Signature": provider_headers(BODY, secret="another secret")["Resend-Signature"]},
        {"Postmark-Signature": provider_headers(BODY)["Resend-Signature"]},  # another provider's header
        {"Resend-Signature": provider_headers(BODY)["Resend-Signature"][:-2]},
        {"Resend-Signature": "sha256=" + provider_headers(BODY)["Resend-Signature"]},
    ],
    ids=["missing", "empty", "garbage", "zeros", "wrong-secret", "other-header", "truncated", "prefixed"],
)
async def test_provider_signature_is_refused(client: httpx.AsyncClient, headers: dict[str, str]) -> None:
    assert_refused(await client.post("/api/webhook/resend/inbound", content=BODY, headers=headers))


async def test_provider_signature_covers_the_raw_body(client: httpx.AsyncClient) -> None:
    headers = provider_headers(BODY)
    tampered = BODY.replace(b"e-1", b"e-2")

    assert_refused(await client.post("/api/webhook/resend/inbound", content=tampered, headers=headers))


@pytest.mark.settings(webhook_secret="")
async def test_provider_path_refuses_everything_without_a_configured_secret(
    client: httpx.AsyncClient,
) -> None:
    headers = provider_headers(BODY, secret="")

    assert_refused(await client.post("/api/webhook/resend/inbound", content=BODY, headers=headers))


async def test_unknown_provider_is_not_found(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/webhook/mailgun/inbound", content=BODY, headers=provider_headers(BODY, "mailgun")
    )

    assert_error(response, 404, "NOT_FOUND")


@pytest.mark.settings(webhook_secret=WEBHOOK_SECRET, inbound_providers="mailgun")
async def test_providers_come_from_settings(client: httpx.AsyncClient) -> None:
    mailgun = await client.post(
        "/api/webhook/mailgun/inbound", content=BODY, headers=provider_headers(BODY, "mailgun")
    )
    resend = await client.post("/api/webhook/resend/inbound", content=BODY, headers=provider_headers(BODY))

    assert mailgun.status_code == 200, mailgun.text
    assert_error(resend, 404, "NOT_FOUND")


# --- Standard Webhooks ------------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["webhook", "svix"])
async def test_standard_signature_is_accepted(client: httpx.AsyncClient, prefix: str) -> None:
    response = await post_standard(client, standard_headers(BODY, timestamp=TS, prefix=prefix))

    assert response.status_code == 200, response.text
    assert response.json() == {"status": "ignored"}


@pytest.mark.settings(inbound_secret=WHSEC_SECRET)
async def test_whsec_secret_is_base64_decoded(client: httpx.AsyncClient) -> None:
    good = await post_standard(client, standard_headers(BODY, key=WHSEC_KEY, timestamp=TS))
    as_text = await post_standard(client, standard_headers(BODY, key=WHSEC_SECRET.encode(), timestamp=TS))

    assert good.status_code == 200, good.text
    assert_refused(as_text)


@pytest.mark.settings(inbound_secret="c2VjcmV0")  # looks like base64 ("secret") but has no whsec_ prefix
async def test_secret_without_prefix_is_used_as_raw_bytes(client: httpx.AsyncClient) -> None:
    raw = await post_standard(client, standard_headers(BODY, key=b"c2VjcmV0", timestamp=TS))
    guessed = await post_standard(client, standard_headers(BODY, key=b"secret", timestamp=TS))

    assert raw.status_code == 200, raw.text
    assert_refused(guessed)


async def test_any_of_several_signatures_passes_key_rotation(client: httpx.AsyncClient) -> None:
    headers = standard_headers(BODY, timestamp=TS, webhook_id="msg_1")
    old = standard_signature(b"the old key", "msg_1", TS, BODY)
    headers["webhook-signature"] = f"{old} v1a,ignored-asymmetric {headers['webhook-signature']}"

    response = await post_standard(client, headers)

    assert response.status_code == 200, response.text


@pytest.mark.parametrize("offset", [-299, 299])
async def test_timestamp_within_five_minutes_is_accepted(client: httpx.AsyncClient, offset: int) -> None:
    response = await post_standard(client, standard_headers(BODY, timestamp=TS + offset))

    assert response.status_code == 200, response.text


@pytest.mark.parametrize("offset", [-301, 301, -86_400])
async def test_stale_or_future_timestamp_is_refused(client: httpx.AsyncClient, offset: int) -> None:
    assert_refused(await post_standard(client, standard_headers(BODY, timestamp=TS + offset)))


def _with(**changes: str | None) -> dict[str, str]:
    headers = standard_headers(BODY, timestamp=TS, webhook_id="msg_1")
    for name, value in changes.items():
        header = name.replace("_", "-")
        if value is None:
            headers.pop(header)
        else:
            headers[header] = value
    return headers


_GOOD_SIG = standard_signature(RAW_INBOUND_SECRET.encode(), "msg_1", TS, BODY)
MALFORMED = {
    "no-id": _with(webhook_id=None),
    "no-timestamp": _with(webhook_timestamp=None),
    "no-signature": _with(webhook_signature=None),
    "empty-signature": _with(webhook_signature=""),
    "timestamp-text": _with(webhook_timestamp="yesterday"),
    "timestamp-float": _with(webhook_timestamp=f"{TS}.5"),
    "timestamp-negative": _with(webhook_timestamp=f"-{TS}"),
    "timestamp-huge": _with(webhook_timestamp="9" * 40),
    "timestamp-plus-sign": _with(webhook_timestamp=f"+{TS}"),
    "signature-no-version": _with(webhook_signature=_GOOD_SIG.removeprefix("v1,")),
    "signature-empty-value": _with(webhook_signature="v1,"),
    "signature-bad-base64": _with(webhook_signature="v1,@@not*base64@@"),
    "signature-other-version": _with(webhook_signature="v2," + _GOOD_SIG.removeprefix("v1,")),
    "signature-of-other-id": _with(webhook_id="msg_2"),
    "signature-of-other-timestamp": _with(webhook_timestamp=str(TS + 1)),
    "id-too-long": _with(webhook_id="x" * 1000),
}


@pytest.mark.parametrize("headers", MALFORMED.values(), ids=MALFORMED.keys())
async def test_malformed_standard_headers_are_401(client: httpx.AsyncClient, headers: dict[str, str]) -> None:
    assert_refused(await post_standard(client, headers))


async def test_standard_signature_covers_the_raw_body(client: httpx.AsyncClient) -> None:
    headers = standard_headers(BODY, timestamp=TS)

    assert_refused(await post_standard(client, headers, body=BODY + b" "))


@pytest.mark.parametrize(
    "secret",
    [
        pytest.param(secret, marks=pytest.mark.settings(inbound_secret=secret), id=secret or "empty")
        for secret in ("", "whsec_", "whsec_%%%not-base64")
    ],
)
async def test_missing_or_broken_configured_secret_is_401_not_500(
    client: httpx.AsyncClient, secret: str
) -> None:
    # Signed with what a naive reading of the secret would give: an empty key, or the text itself.
    for key in (b"", secret.encode()):
        assert_refused(await post_standard(client, standard_headers(BODY, key=key, timestamp=TS)))


async def test_payload_is_parsed_only_after_verification(client: httpx.AsyncClient) -> None:
    garbage = b"{not json"

    unsigned = await post_standard(client, {}, body=garbage)
    signed = await post_standard(client, standard_headers(garbage, timestamp=TS), body=garbage)

    assert_refused(unsigned)
    assert_error(signed, 400, "MALFORMED_JSON")
