"""Forged senders: authentication results count only from the receiving provider's own headers (its
authserv-ids listed in WARRANTY_INBOUND_AUTHSERV_IDS), and once they are listed an email is posted only
when they prove its From domain (DMARC, or SPF/DKIM aligned with it when the domain publishes no DMARC)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic import ValidationError

from app.config import Settings
from app.models import Claim
from tests.factories.inbound import FORMATS, SECRETS, claim_address, email_in, post_standard
from tests.inbound.support import CUSTOMER, bodies_of, messages_of, new_claim

PROVIDER = "mx.provider.example"
pytestmark = pytest.mark.settings(**SECRETS, inbound_authserv_ids=[PROVIDER, "arc.relay.example"])
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


# --- The attacker's emails


@pytest.mark.parametrize("fmt", FORMATS)
async def test_an_email_with_no_dkim_signature_is_not_posted_as_the_customer(
    app: FastAPI, client: httpx.AsyncClient, fmt: str
) -> None:
    await _refused(app, client, fmt, {"Authentication-Results": f"{PROVIDER}; dkim=none"})


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


# --- What is believed


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


# --- Settings


def test_the_settings_read_a_comma_list_and_require_auth_once_it_is_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WARRANTY_INBOUND_AUTHSERV_IDS", " mx.provider.example, amazonses.com ,")
    listed = Settings(_env_file=None)  # type: ignore[call-arg]
    monkeypatch.setenv("WARRANTY_INBOUND_REQUIRE_AUTH", "false")
    relaxed = Settings(_env_file=None)  # type: ignore[call-arg]
    monkeypatch.delenv("WARRANTY_INBOUND_AUTHSERV_IDS")
    monkeypatch.setenv("WARRANTY_INBOUND_REQUIRE_AUTH", "")
    unset = Settings(_env_file=None)  # type: ignore[call-arg]

    assert listed.inbound_authserv_ids == ["mx.provider.example", "amazonses.com"]
    assert (listed.inbound_auth_required, relaxed.inbound_auth_required) == (True, False)
    assert (unset.inbound_authserv_ids, unset.inbound_auth_required) == ([], False)


def test_requiring_authentication_without_a_trusted_server_is_refused_at_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WARRANTY_INBOUND_REQUIRE_AUTH", "true")
    with pytest.raises(ValidationError, match="WARRANTY_INBOUND_AUTHSERV_IDS"):
        Settings(_env_file=None)  # type: ignore[call-arg]
