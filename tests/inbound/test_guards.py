"""Mail that must never become a claim message (app/inbound/guards.py): auto-replies, bounces and our own mail
coming back, and forged senders. While no authserv-id is listed every recorded verdict counts and only
failing ones refuse; once the receiving provider's are listed (WARRANTY_INBOUND_AUTHSERV_IDS) only its
own results count, and an email is posted only when they prove its From domain (DMARC, or SPF/DKIM
aligned with it when the domain publishes no DMARC)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.inbound.formats import InboundEmail, parse_payload
from app.inbound.guards import is_automated, own_address, sender_not_authenticated
from app.models import Claim, OutboxItem
from tests.conftest import SettingsFactory
from tests.factories.inbound import FORMATS, SECRETS, claim_address, email_in, generic, post_standard
from tests.inbound.support import CUSTOMER, REPLY, bodies_of, build, make_claim, messages_of, new_claim, rows

PROVIDER = "mx.provider.example"
pytestmark = pytest.mark.settings(**SECRETS)
# The receiving provider and a sealer it trusts, listed.
LISTED = pytest.mark.settings(**SECRETS, inbound_authserv_ids=[PROVIDER, "arc.relay.example"])
NOT_AUTHENTICATED = {"status": "ignored", "reason": "sender_not_authenticated"}


def _email(fmt: str, claim: Claim, headers: dict[str, str], sender: str = f"Ann <{CUSTOMER}>") -> Any:
    return email_in(fmt, sender, claim_address(claim.id), text="It still rattles.", headers=headers)


async def _refused(app: FastAPI, client: httpx.AsyncClient, fmt: str, headers: dict[str, str]) -> None:
    claim = await new_claim(app)

    response = await post_standard(client, _email(fmt, claim, headers))

    assert response.status_code == 200, response.text
    assert response.json() == NOT_AUTHENTICATED
    assert await messages_of(app, claim.id) == []


async def _posted(app: FastAPI, client: httpx.AsyncClient, fmt: str, headers: dict[str, str]) -> None:
    claim = await new_claim(app)

    response = await post_standard(client, _email(fmt, claim, headers))

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "processed", response.text
    assert await bodies_of(app, claim.id) == ["It still rattles."]


# --- Listed authserv-ids: the attacker's emails


@LISTED
@pytest.mark.parametrize("fmt", FORMATS)
async def test_an_email_with_no_dkim_signature_is_not_posted_as_the_customer(
    app: FastAPI, client: httpx.AsyncClient, fmt: str
) -> None:
    await _refused(app, client, fmt, {"Authentication-Results": f"{PROVIDER}; dkim=none"})


@LISTED
@pytest.mark.parametrize("fmt", FORMATS)
async def test_a_failing_dkim_with_a_sender_written_arc_pass_is_not_posted(
    app: FastAPI, client: httpx.AsyncClient, fmt: str
) -> None:
    headers = {
        "Authentication-Results": f"{PROVIDER}; dkim=fail header.d=example.com; spf=none",
        "ARC-Authentication-Results": "i=1; mx.google.com; dkim=pass header.d=example.com; "
        "spf=pass smtp.mailfrom=example.com; dmarc=pass header.from=example.com",
    }
    await _refused(app, client, fmt, headers)


@LISTED
async def test_an_arc_pass_naming_a_listed_sealer_counts_only_when_the_chain_verified(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """Anyone can write an ARC-Authentication-Results naming any server: the provider's own arc=pass
    (the seal verified) is what makes the sealer's results worth reading."""
    claim = await new_claim(app)
    arc = "i=2; arc.relay.example; dmarc=pass header.from=example.com"
    forwarded = f"{PROVIDER}; dmarc=fail header.from=example.com"

    unsealed = await post_standard(client, _email("generic", claim, {
        "Authentication-Results": f"{forwarded}; arc=none", "ARC-Authentication-Results": arc,
    }))  # fmt: skip
    sealed = await post_standard(client, _email("generic", claim, {
        "Authentication-Results": f"{forwarded}; arc=pass", "ARC-Authentication-Results": arc,
    }))  # fmt: skip

    assert unsealed.json() == NOT_AUTHENTICATED
    assert sealed.json()["status"] == "processed", sealed.text


# --- Listed authserv-ids: what is believed


@LISTED
@pytest.mark.parametrize("fmt", FORMATS)
async def test_a_listed_provider_saying_dmarc_pass_is_posted(
    app: FastAPI, client: httpx.AsyncClient, fmt: str
) -> None:
    headers = {
        "Authentication-Results": f"{PROVIDER.upper()} 1; "
        "dkim=pass (good signature) header.d=example.com header.s=s1; "
        'spf=pass (sender "ip" permitted; see ";" rules) smtp.mailfrom=bounce@example.com; '
        "dmarc=pass (p=REJECT sp=REJECT dis=NONE) header.from=example.com"
    }
    await _posted(app, client, fmt, headers)


@LISTED
@pytest.mark.parametrize(
    ("results", "proven"),
    [
        # An aligned pass is enough where the domain publishes no DMARC.
        ("spf=pass smtp.mailfrom=ann@example.com; dmarc=none header.from=example.com", True),
        ("spf=pass smtp.mailfrom=bounces.example.com", True),  # no DMARC result at all
        ("dkim=pass header.i=@mail.example.com; spf=fail smtp.mailfrom=other.example; dmarc=none", True),
        ("dkim=fail header.d=example.com; dkim=pass header.d=EXAMPLE.com; dmarc=none", True),
        # Results that do not prove the From domain.
        ("dmarc=fail; spf=pass smtp.mailfrom=example.com; dkim=pass header.d=example.com", False),
        ("dmarc=temperror; spf=pass smtp.mailfrom=example.com", False),
        ("dmarc=pass header.from=elsewhere.example", False),  # DMARC judged another From than the one we read
        ("spf=pass smtp.mailfrom=attacker.example; dmarc=none", False),  # not aligned
        ("dkim=pass header.d=example.com.attacker.example; dmarc=none", False),
        ("dkim=pass header.d=com; dmarc=none", False),  # a suffix is nobody's organisation
        ("spf=softfail smtp.mailfrom=example.com; dkim=neutral header.d=example.com", False),
        ("none", False),
    ],
)
async def test_listed_results_post_the_email_only_when_they_prove_its_from_domain(
    app: FastAPI, client: httpx.AsyncClient, results: str, proven: bool
) -> None:
    check = _posted if proven else _refused
    await check(app, client, "generic", {"Authentication-Results": f"{PROVIDER}; {results}"})


@LISTED
@pytest.mark.parametrize(
    "headers",
    [
        {"Authentication-Results": "mx.google.com; dkim=pass header.d=example.com; dmarc=pass"},
        {"Authentication-Results": f"{PROVIDER}.attacker.example; dmarc=pass"},
        {"Authentication-Results": f"mx.other.example (via {PROVIDER}); dmarc=pass"},
        {"Received-SPF": "pass (example.com: 203.0.113.9 is permitted) envelope-from=ann@example.com"},
        {},
    ],
    ids=["other-server", "suffixed-id", "named-in-a-comment", "received-spf", "no-results"],
)
async def test_results_from_a_server_that_is_not_listed_are_not_believed(
    app: FastAPI, client: httpx.AsyncClient, headers: dict[str, str]
) -> None:
    await _refused(app, client, "generic", headers)


@pytest.mark.settings(**SECRETS, inbound_authserv_ids=[PROVIDER], inbound_require_auth=False)
async def test_without_require_auth_only_listed_failures_refuse(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    claim = await new_claim(app)
    unlisted = {"Authentication-Results": "mx.elsewhere.example; dmarc=fail", "Received-SPF": "fail"}
    listed = {"Authentication-Results": f"{PROVIDER}; dmarc=fail header.from=example.com"}

    believed = await post_standard(client, _email("generic", claim, listed))
    ignored = await post_standard(client, _email("generic", claim, unlisted))

    assert believed.json() == NOT_AUTHENTICATED
    assert ignored.json()["status"] == "processed", ignored.text


# --- No authserv-id listed: whoever wrote the verdicts is believed


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


# --- Loop guards


def _email_from(sender: str, **headers: str) -> InboundEmail:
    return parse_payload(generic(sender, claim_address(1), headers=headers))


def test_our_own_address_is_the_mail_from_address(make_settings: SettingsFactory) -> None:
    assert own_address(make_settings()) == "notifications@warranty.local"
    assert own_address(make_settings(mail_from="Support <Help@Example.COM>")) == "help@example.com"
    assert own_address(make_settings(mail_from="nobody")) == ""


@pytest.mark.parametrize(
    ("sender", "headers", "automated"),
    [
        (CUSTOMER, {"Return-Path": "<>"}, True),  # a delivery status notification
        (CUSTOMER, {"Return-Path": "<bounces@example.com>"}, False),
        (CUSTOMER, {"Auto-Submitted": "no; written by a person"}, False),
        (CUSTOMER, {"Auto-Submitted": "auto-notified"}, True),
        (CUSTOMER, {"Precedence": "first-class"}, False),
        ("noreply+orders@shop.example", {}, True),  # a +tag does not hide the local part
        ("replies@shop.example", {}, False),
        ("support@warranty.local", {}, False),  # our domain, but no claim reply address
        ("claim+12@warranty.local", {}, True),
        ("claim+12@other.example", {}, False),
    ],
)
def test_what_no_person_wrote_is_automated(
    make_settings: SettingsFactory, sender: str, headers: dict[str, str], automated: bool
) -> None:
    assert is_automated(_email_from(sender, **headers), make_settings()) is automated


@pytest.mark.parametrize(
    ("headers", "refused"),
    [
        ({}, False),  # no verdict: not decided here
        ({"Received-SPF": "fail; (no)"}, False),  # SPF alone does not condemn
        ({"Received-SPF": "softfail;", "Authentication-Results": "mx.example; dkim=fail"}, True),
        ({"Authentication-Results": "mx.example; dkim = fail; spf =  fail; dkim=pass"}, False),
        ({"ARC-Authentication-Results": "i=1; relay.example; dmarc=fail"}, True),
    ],
)
def test_without_listed_servers_only_failing_verdicts_refuse(
    make_settings: SettingsFactory, headers: dict[str, str], refused: bool
) -> None:
    assert sender_not_authenticated(_email_from(CUSTOMER, **headers), make_settings()) is refused


def test_listed_results_are_the_providers_own_topmost_header_only(make_settings: SettingsFactory) -> None:
    settings = make_settings(inbound_authserv_ids=[PROVIDER])
    proven = f"{PROVIDER}; dmarc=pass header.from=example.com"

    assert not sender_not_authenticated(_email_from(CUSTOMER, **{"Authentication-Results": proven}), settings)
    assert sender_not_authenticated(
        _email_from("ann@elsewhere.example", **{"Authentication-Results": proven}), settings
    )
    relaxed = make_settings(inbound_authserv_ids=[PROVIDER], inbound_require_auth=False)
    nothing = {"Authentication-Results": f"{PROVIDER}; dkim=none"}
    assert not sender_not_authenticated(_email_from(CUSTOMER, **nothing), relaxed)
    assert sender_not_authenticated(_email_from(CUSTOMER, **nothing), settings)
