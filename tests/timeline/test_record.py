"""How a claim's timeline grows (app/timeline/record.py): each change's entry with the role its actor had in
the claim, and the outbox worker's notifications sent, failed or skipped (the error named by its class only,
nothing when the claim is gone); seen through the timeline a reader gets, and in the rows written."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.models import Claim, ClaimEvent, User
from app.models.enums import OutboxState, Role
from app.timeline.record import ActorRole, TimelineKind, add_to_timeline, notification_finished, role_of
from app.worker_assembly import build_worker
from tests.factories.claims import create_claim
from tests.factories.inbound import RAW_INBOUND_SECRET, claim_address, generic, post_standard
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import wait_for
from tests.timeline.support import story, timeline

pytestmark = pytest.mark.settings(inbound_secret=RAW_INBOUND_SECRET)


async def _entries(app: FastAPI) -> list[tuple[Any, ...]]:
    async with app.state.sessionmaker() as session:
        rows = await session.scalars(select(ClaimEvent).order_by(ClaimEvent.id))
        return [(row.claim_id, row.kind, row.actor_id, row.actor_role, row.data) for row in rows]


def test_an_actor_is_named_by_the_part_they_take_in_the_claim() -> None:
    claim = Claim(id=1, customer_id=10, supplier_id=20)
    customer, supplier = User(id=10, roles=[Role.USER]), User(id=20, roles=[Role.SUPPLIER])
    admin, other_supplier = User(id=30, roles=[Role.ADMIN]), User(id=40, roles=[Role.SUPPLIER])

    assert role_of(claim, customer) == ActorRole.CUSTOMER
    assert role_of(claim, supplier) == ActorRole.SUPPLIER
    assert role_of(claim, admin) == ActorRole.ADMIN
    # Not (or no longer) the claim's supplier, and no admin: a supplier acting on it.
    assert role_of(claim, other_supplier) == ActorRole.SUPPLIER
    # An admin who is the claim's customer acted as its customer.
    assert role_of(Claim(id=2, customer_id=30, supplier_id=20), admin) == ActorRole.CUSTOMER


async def test_an_entry_is_added_in_the_callers_transaction_with_its_actor_or_as_the_system(
    app: FastAPI,
) -> None:
    customer, admin = await create_user(app), await create_admin(app)
    claim = await create_claim(app, await create_product(app, customer))

    async with app.state.sessionmaker() as session, session.begin():
        add_to_timeline(
            session, claim, TimelineKind.STATUS_CHANGED, admin, **{"from": "open", "to": "closed"}
        )
        add_to_timeline(session, claim.id, TimelineKind.NOTIFICATION_SENT, channel="push")
    async with app.state.sessionmaker() as session:
        add_to_timeline(session, claim, TimelineKind.MESSAGE_POSTED, customer, messageId=1)
        await session.rollback()  # not committed: not on the timeline

    assert await _entries(app) == [
        (claim.id, "status.changed", admin.id, "admin", {"from": "open", "to": "closed"}),
        (claim.id, "notification.sent", None, "system", {"channel": "push"}),
    ]


async def test_a_finished_notification_of_a_claim_is_recorded_with_its_errors_class_only(
    app: FastAPI,
) -> None:
    customer = await create_user(app)
    claim = await create_claim(app, await create_product(app, customer))
    payload = {"claimId": claim.id, "recipientId": customer.id, "messageId": 5}
    refused = "SMTPRecipientsRefused: {'ann@example.com': (550, b'no such user')}"

    async with app.state.sessionmaker() as session, session.begin():
        await notification_finished(session, 7, "email.claim_message", payload, OutboxState.FAILED, refused)
        await notification_finished(session, 8, "push.claim_status", payload, OutboxState.DONE, "ignored")
        await notification_finished(session, 9, "push.claim_message", payload, OutboxState.SKIPPED, None)

    common = {"recipientId": customer.id}
    assert await _entries(app) == [
        (claim.id, "notification.failed", None, "system",
         {"channel": "email", "notification": "claim_message", "outboxId": 7,
          "error": "SMTPRecipientsRefused", **common}),
        (claim.id, "notification.sent", None, "system",
         {"channel": "push", "notification": "claim_status", "outboxId": 8, **common}),
        (claim.id, "notification.skipped", None, "system",
         {"channel": "push", "notification": "claim_message", "outboxId": 9, **common}),
    ]  # fmt: skip


async def test_what_is_no_claims_notification_or_not_finished_is_not_recorded(app: FastAPI) -> None:
    customer = await create_user(app)
    claim = await create_claim(app, await create_product(app, customer))
    of_the_claim = {"claimId": claim.id, "recipientId": customer.id}

    async with app.state.sessionmaker() as session, session.begin():
        await notification_finished(session, 1, "webhook.deliver", of_the_claim, OutboxState.DONE, None)
        await notification_finished(
            session, 2, "email.password_reset", {"email": "a@b.c"}, OutboxState.DONE, None
        )
        await notification_finished(session, 3, "email.claim_status", of_the_claim, OutboxState.PENDING, "x")
        await notification_finished(
            session, 4, "email.claim_status", {"claimId": str(claim.id)}, OutboxState.DONE, None
        )

    assert await _entries(app) == []


async def test_a_notification_of_a_claim_deleted_since_adds_nothing_and_keeps_the_transaction(
    app: FastAPI,
) -> None:
    customer = await create_user(app)
    claim = await create_claim(app, await create_product(app, customer))
    gone = {"claimId": claim.id + 1000, "recipientId": customer.id}

    async with app.state.sessionmaker() as session, session.begin():
        await notification_finished(session, 1, "email.claim_status", gone, OutboxState.DONE, None)
        add_to_timeline(session, claim.id, TimelineKind.NOTIFICATION_SENT, outboxId=2)

    assert await _entries(app) == [(claim.id, "notification.sent", None, "system", {"outboxId": 2})]


async def test_the_worker_records_each_notification_it_sent_or_failed(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    lived = await story(app, client)
    worker = build_worker(
        app.state.settings, app.state.sessionmaker, app.state.storage
    )  # .eml files, push log
    await worker.run_until_idle()

    entries = await timeline(client, lived["claim"], lived["headers"][2])
    sent = [e for e in entries if e["type"] == "notification.sent"]

    assert sent and all(e["actor"] is None for e in sent)
    customer_id = lived["customer"].id
    # The customer heard of the supplier's message and of each status change the supplier made.
    to_customer = sorted(
        (e["data"]["channel"], e["data"]["notification"])
        for e in sent
        if e["data"]["recipientId"] == customer_id
    )
    assert to_customer == sorted(
        [("email", "claim_message"), ("push", "claim_message")]
        + [("email", "claim_status"), ("push", "claim_status")] * 2
    )
    assert all(set(e["data"]) == {"channel", "notification", "recipientId", "outboxId"} for e in sent)
    assert [e["type"] for e in entries[:7]][
        -1
    ] == "supplier.unassigned"  # recorded when sent, after the changes


@pytest.mark.settings(
    smtp_url="smtp://127.0.0.1:9",
    outbox_retry_hours=0.0001,
    outbox_backoff_base=0.01,
    inbound_secret=RAW_INBOUND_SECRET,
)
async def test_an_email_that_could_not_be_sent_shows_as_failed(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    customer = await create_user(app)
    supplier = await create_supplier(app)
    claim = await create_claim(app, await create_product(app, customer), supplier=supplier)
    response = await client.post(
        f"/api/claims/{claim.id}/messages", json={"message": "Hi"}, headers=auth_headers(app, supplier)
    )
    assert response.status_code == 201
    worker = build_worker(app.state.settings, app.state.sessionmaker, app.state.storage)

    async def failed_entries() -> list[Any]:
        await worker.run_until_idle()  # retried with backoff until its (short) retry window is over
        entries = await timeline(client, claim.id, auth_headers(app, customer))
        return [e for e in entries if e["type"] == "notification.failed"]

    failed = await wait_for(failed_entries)
    entries = await timeline(client, claim.id, auth_headers(app, customer))

    assert [(e["data"]["channel"], e["data"]["recipientId"]) for e in failed] == [("email", customer.id)]
    assert failed[0]["data"]["error"] in ("ConnectionRefusedError", "SMTPConnectError", "OSError")
    assert [e["data"]["channel"] for e in entries if e["type"] == "notification.sent"] == ["push"]


async def test_inbound_emails_show_as_accepted_or_ignored_with_the_reason(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    customer = await create_user(app, email="ann@example.com", name="Ann")
    supplier = await create_supplier(app)
    claim = await create_claim(app, await create_product(app, customer), supplier=supplier)
    to = claim_address(claim.id)

    accepted = await post_standard(client, generic("ann@example.com", to, text="It rattles."))
    auto = await post_standard(
        client, generic("ann@example.com", to, headers={"Auto-Submitted": "auto-replied"})
    )
    empty = await post_standard(client, generic("ann@example.com", to, text="> only a quote\n"))
    assert [r.json()["status"] for r in (accepted, auto, empty)] == ["processed", "ignored", "ignored"]

    entries = await timeline(client, claim.id, auth_headers(app, customer))

    ann = {"id": customer.id, "name": "Ann", "role": "customer"}
    message_id = int(accepted.json()["messageId"])
    assert [(e["type"], e["actor"], e["data"]) for e in entries] == [
        ("message.posted", ann, {"messageId": message_id, "senderId": customer.id}),
        ("inbound.accepted", ann, {"messageId": message_id, "sender": "ann@example.com"}),
        ("inbound.ignored", None, {"reason": "automated", "sender": "ann@example.com"}),
        ("inbound.ignored", ann, {"reason": "empty_reply", "sender": "ann@example.com"}),
    ]
