"""Turning a verified inbound email into a claim message, or saying why not (app/inbound/service.py): only a
participant's mail to an open claim posts; a claim address is needed (400), the claim and the sender
must exist (404) and the sender take part (403); refused mail writes nothing a stranger can see (logged
and counted), while a participant's ignored email leaves one timeline entry; a redelivery or a replay
is a duplicate, however it arrives; a metadata-only event needs Resend's API key, an inlined one no call."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.models import Claim, Event, InboundDelivery, OutboxItem, User
from tests.factories.inbound import (
    SECRETS,
    claim_address,
    generic,
    post_provider,
    post_standard,
    provider_event,
)
from tests.factories.users import auth_headers, create_admin, create_user
from tests.helpers import assert_error
from tests.inbound.resend_server import ResendApi
from tests.inbound.support import (
    CUSTOMER,
    PATHS,
    REPLY,
    SUPPLIER,
    WITH_RESEND,
    build,
    deliver,
    make_claim,
    messages_of,
    new_claim,
    rows,
)
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


# --- Who may post, and where


async def test_the_supplier_can_answer_by_email_and_the_customer_is_notified(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    customer, supplier, claim = await make_claim(app)

    response = await post_standard(client, build("generic", f"Sam <{SUPPLIER.upper()}>", claim.id))

    assert response.json()["status"] == "processed", response.text
    [message] = await messages_of(app, claim.id)
    assert message.sender_id == supplier.id
    assert {item.payload["recipientId"] for item in await rows(app, OutboxItem)} == {customer.id}


@pytest.mark.parametrize("path", PATHS)
async def test_no_claim_address_is_400(app: FastAPI, client: httpx.AsyncClient, path: str) -> None:
    await make_claim(app)
    payload = generic(CUSTOMER, "support@warranty.local, claim+1@other.example")

    assert_error(await deliver(client, path, payload), 400, "VALIDATION_FAILED")


@pytest.mark.parametrize("claim_id", [999_999, 10**30])
async def test_unknown_claim_is_404(app: FastAPI, client: httpx.AsyncClient, claim_id: int) -> None:
    await make_claim(app)

    assert_error(await post_standard(client, build("generic", CUSTOMER, claim_id)), 404, "NOT_FOUND")


async def test_unknown_sender_is_404(app: FastAPI, client: httpx.AsyncClient) -> None:
    _customer, _supplier, claim = await make_claim(app)

    response = await post_standard(client, build("generic", "stranger@example.com", claim.id))

    assert_error(response, 404, "NOT_FOUND")


@pytest.mark.parametrize("who", ["other-user", "admin", "unassigned-supplier"])
async def test_a_sender_who_is_not_a_participant_is_403(
    app: FastAPI, client: httpx.AsyncClient, who: str
) -> None:
    _customer, _supplier, claim = await make_claim(app, assigned=who != "unassigned-supplier")
    if who == "other-user":
        sender = (await create_user(app)).email
    elif who == "admin":
        sender = (await create_admin(app)).email
    else:
        sender = SUPPLIER

    assert_error(await post_standard(client, build("generic", sender, claim.id)), 403, "FORBIDDEN")
    assert await messages_of(app, claim.id) == []


async def test_a_closed_claim_takes_no_message(app: FastAPI, client: httpx.AsyncClient) -> None:
    _customer, _supplier, claim = await make_claim(app, status="closed")

    response = await post_standard(client, build("provider", CUSTOMER, claim.id))

    assert response.status_code == 200
    assert response.json() == {"status": "ignored"}
    assert await messages_of(app, claim.id) == []


@pytest.mark.parametrize(
    "text", ["", "> all quoted\n", "On Mon, Jan 5, 2026 at 10:12 AM X wrote:\n> old\n", "\n-- \nAnn\n"]
)
async def test_nothing_new_is_ignored(app: FastAPI, client: httpx.AsyncClient, text: str) -> None:
    _customer, _supplier, claim = await make_claim(app)

    response = await post_standard(client, build("generic", CUSTOMER, claim.id, text=text))

    assert response.json() == {"status": "ignored"}
    assert await messages_of(app, claim.id) == []


async def test_same_webhook_id_is_a_duplicate(app: FastAPI, client: httpx.AsyncClient) -> None:
    _customer, _supplier, claim = await make_claim(app)

    first = await post_standard(client, build("provider", CUSTOMER, claim.id), webhook_id="msg_1")
    # A retry of the same webhook; even its body differs (a fresh email id and Message-ID).
    second = await post_standard(client, build("provider", CUSTOMER, claim.id), webhook_id="msg_1")

    assert first.json()["status"] == "processed"
    assert second.json() == {"status": "duplicate"}
    assert len(await messages_of(app, claim.id)) == 1


@pytest.mark.parametrize("path", PATHS)
async def test_same_provider_email_id_is_a_duplicate(
    app: FastAPI, client: httpx.AsyncClient, path: str
) -> None:
    _customer, _supplier, claim = await make_claim(app)

    first = await deliver(client, path, build("provider", CUSTOMER, claim.id, email_id="e-1"))
    second = await deliver(client, path, build("provider", CUSTOMER, claim.id, email_id="e-1"))

    assert (first.json()["status"], second.json()) == ("processed", {"status": "duplicate"})
    assert len(await messages_of(app, claim.id)) == 1


async def test_same_message_id_is_a_duplicate_across_paths_and_formats(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    _customer, _supplier, claim = await make_claim(app)

    first = await post_provider(client, build("postmark", CUSTOMER, claim.id, message_id="m-1"))
    second = await post_standard(client, build("provider", CUSTOMER, claim.id, message_id="m-1"))

    assert (first.json()["status"], second.json()) == ("processed", {"status": "duplicate"})
    assert len(await messages_of(app, claim.id)) == 1
    keys = {row.key for row in await rows(app, InboundDelivery)}
    assert "msgid:m-1@mail.example.com" in keys


async def test_different_emails_are_not_duplicates(app: FastAPI, client: httpx.AsyncClient) -> None:
    _customer, _supplier, claim = await make_claim(app)

    for _ in range(2):
        assert (await post_standard(client, build("provider", CUSTOMER, claim.id))).json()[
            "status"
        ] == "processed"

    assert len(await messages_of(app, claim.id)) == 2


@pytest.mark.parametrize("path", PATHS)
async def test_concurrent_deliveries_of_one_email_make_one_message(
    app: FastAPI, client: httpx.AsyncClient, path: str
) -> None:
    _customer, _supplier, claim = await make_claim(app)
    payload = build("provider", CUSTOMER, claim.id)

    responses = await asyncio.gather(*(deliver(client, path, payload, webhook_id="msg_x") for _ in range(2)))

    assert sorted(response.json()["status"] for response in responses) == ["duplicate", "processed"]
    assert len(await messages_of(app, claim.id)) == 1
    assert len(await rows(app, Event)) == 1


@pytest.mark.postgres_only
async def test_many_concurrent_deliveries_make_one_message_on_postgres(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    _customer, _supplier, claim = await make_claim(app)
    payload = build("postmark", CUSTOMER, claim.id)

    responses = await asyncio.gather(*(post_provider(client, payload) for _ in range(6)))

    assert sorted(response.json()["status"] for response in responses) == ["duplicate"] * 5 + ["processed"]
    assert len(await messages_of(app, claim.id)) == 1


async def test_delivery_keys_point_at_the_message(app: FastAPI, client: httpx.AsyncClient) -> None:
    _customer, _supplier, claim = await make_claim(app)

    response = await post_standard(
        client, build("provider", CUSTOMER, claim.id, email_id="e-9", message_id="m-9"), webhook_id="msg_9"
    )

    deliveries = {row.key: row.message_id for row in await rows(app, InboundDelivery)}
    message_id = int(response.json()["messageId"])
    assert deliveries == {
        "webhook:msg_9": message_id,
        "email:e-9": message_id,
        "msgid:m-9@mail.example.com": message_id,
    }


# --- Events without a body, and replays without ids (contract 13.3, 13.6)


@pytest.mark.settings(**{**WITH_RESEND, "resend_api_key": ""})
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


@pytest.mark.settings(**WITH_RESEND)
async def test_an_event_with_its_body_inlined_needs_no_api_call(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi
) -> None:
    claim = await new_claim(app)

    response = await post_standard(client, provider_event(CUSTOMER, [claim_address(claim.id)], text=REPLY))

    assert response.json()["status"] == "processed"
    assert resend.requests == []


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
