"""Refused mail writes nothing a stranger can see: an email ignored before its sender is known to be a
participant leaves no timeline entry on the claim it names (it is logged and counted); a participant's
ignored email leaves one entry, and a redelivery does not add a second."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.models import Claim, User
from tests.factories.inbound import (
    SECRETS,
    claim_address,
    generic,
    post_provider,
    post_standard,
    provider_event,
)
from tests.factories.users import auth_headers, create_user
from tests.inbound.support import CUSTOMER, make_claim
from tests.metrics.scrape import scrape, value

pytestmark = pytest.mark.settings(**SECRETS)
AUTO_REPLY = {"Auto-Submitted": "auto-replied"}


async def _timeline(app: FastAPI, client: httpx.AsyncClient, claim: Claim, reader: User) -> list[Any]:
    response = await client.get(f"/api/claims/{claim.id}/timeline", headers=auth_headers(app, reader))
    assert response.status_code == 200, response.text
    entries: list[Any] = response.json()
    return entries


def _inbound(entries: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(e["type"], e["data"].get("reason")) for e in entries if e["type"].startswith("inbound.")]


@pytest.mark.parametrize("stranger", ["Mallory <mallory@attacker.example>", "registered"])
async def test_a_strangers_auto_replies_leave_nothing_on_the_claim(
    app: FastAPI, client: httpx.AsyncClient, stranger: str, caplog: pytest.LogCaptureFixture
) -> None:
    customer, _supplier, claim = await make_claim(app)
    if stranger == "registered":  # a user of the service, but not of this claim
        stranger = (await create_user(app, email="eve@example.com")).email
    before = value(await scrape(client), "warranty_inbound_ignored_total", reason="automated")

    with caplog.at_level(logging.INFO, logger="warranty.inbound"):
        for number in range(3):
            text = f"I am out of the office ({number}). <script>alert(1)</script>"
            payload = generic(stranger, claim_address(claim.id), text=text, headers=AUTO_REPLY)
            response = await post_provider(client, payload)
            assert response.json() == {"status": "ignored"}, response.text

    assert _inbound(await _timeline(app, client, claim, customer)) == []
    after = value(await scrape(client), "warranty_inbound_ignored_total", reason="automated")
    assert after - before == 3
    assert sum("automated" in record.getMessage() for record in caplog.records) == 3


@pytest.mark.settings(**SECRETS, inbound_authserv_ids=["mx.provider.example"])
async def test_an_unauthenticated_email_claiming_the_customer_leaves_nothing(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    customer, _supplier, claim = await make_claim(app)
    headers = {**AUTO_REPLY, "Authentication-Results": "mx.provider.example; dkim=none"}

    response = await post_provider(client, generic(CUSTOMER, claim_address(claim.id), headers=headers))

    assert response.json() == {"status": "ignored", "reason": "sender_not_authenticated"}
    assert _inbound(await _timeline(app, client, claim, customer)) == []


async def test_a_participants_auto_reply_shows_once_however_often_it_is_delivered(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    customer, _supplier, claim = await make_claim(app)
    payload = generic(CUSTOMER, claim_address(claim.id), text="Out of office.", headers=AUTO_REPLY)

    answers = [(await post_provider(client, payload)).json() for _ in range(2)]

    assert answers == [{"status": "ignored"}, {"status": "duplicate"}]
    assert _inbound(await _timeline(app, client, claim, customer)) == [("inbound.ignored", "automated")]


async def test_a_participants_email_to_a_closed_claim_shows_once(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    customer, _supplier, claim = await make_claim(app, status="closed")
    payload = generic(CUSTOMER, claim_address(claim.id), text="Any news?", message_id="<m-1@example.com>")

    answers = [(await post_provider(client, payload)).json()["status"] for _ in range(2)]

    assert answers == ["ignored", "duplicate"]
    assert _inbound(await _timeline(app, client, claim, customer)) == [("inbound.ignored", "claim_closed")]


@pytest.mark.settings(**SECRETS, resend_api_key="re_key", resend_api_url="http://127.0.0.1:9")
async def test_an_event_naming_no_resend_email_is_counted_and_leaves_nothing(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    customer, _supplier, claim = await make_claim(app)
    event = provider_event(CUSTOMER, [claim_address(claim.id)], email_id="../../emails/someone-elses")
    del event["data"]["text"], event["data"]["html"]  # metadata only: the body would be asked of Resend
    before = value(await scrape(client), "warranty_inbound_ignored_total", reason="invalid_provider_id")

    response = await post_standard(client, event)

    assert response.json() == {"status": "ignored", "reason": "invalid_provider_id"}
    after = value(await scrape(client), "warranty_inbound_ignored_total", reason="invalid_provider_id")
    assert after - before == 1
    assert _inbound(await _timeline(app, client, claim, customer)) == []
