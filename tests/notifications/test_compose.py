"""What a claim notification says, composed at send time (app/notifications/compose.py): the message email
with its attachment (or without it, once its file is gone), the status email with a resolution's
outcome, the pushes with their preview and thread; nothing for a recipient who switched that channel
off or a message deleted since, and `skipped` for a recipient who left the claim."""

from __future__ import annotations

import logging
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from app.core.clock import frozen_time, utc_now
from app.models import Claim, Message, User
from app.notifications.compose import (
    claim_context,
    claim_thread,
    message_email,
    message_push,
    status_email,
    status_push,
)
from app.notifications.push import PushNotification
from app.outbox.handlers import Skipped
from app.outbox.worker import OutboxWorker
from tests.factories.claims import create_claim, create_message
from tests.factories.notifications import notify_message, notify_status, outbox_rows
from tests.factories.outcomes import extension_from_today, resolved_cast
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.notifications.support import claim_with_message, register_device
from tests.support.gorush import ANDROID, Gorush
from tests.support.smtp import Inbox


def _parts(email: EmailMessage) -> tuple[str, str]:
    text, html = email.get_body(preferencelist=("plain",)), email.get_body(preferencelist=("html",))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


async def test_the_status_email_tells_the_outcome(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    await resolved_cast(app, client)
    extension = extension_from_today()

    await worker.run_until_idle()

    [email] = inbox.to("ann@example.com")
    assert email["Subject"].endswith("is now Resolved")
    text, html = _parts(email)
    assert "Outcome: Replaced" in text and "Note: A new <pump> & seal." in text
    assert f"New warranty: 6 months, from {extension['startsOn']} to {extension['endsOn']}" in text
    assert "Outcome: Replaced" in html and "A new &lt;pump&gt; &amp; seal." in html
    assert f"to {extension['endsOn']}" in html


async def test_a_resolution_without_an_outcome_names_none(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    await resolved_cast(app, client, {"status": "resolved"})

    await worker.run_until_idle()

    [email] = inbox.to("ann@example.com")
    text, html = _parts(email)
    assert "Resolved" in text and "Outcome" not in text and "Outcome" not in html


async def _compose(app: FastAPI, make: Any) -> Any:
    async with app.state.sessionmaker() as session:
        return await make(session)


async def test_a_message_push_previews_its_text_in_the_claims_thread(app: FastAPI) -> None:
    customer, supplier, claim, message = await claim_with_message(app, "x" * 139 + "yz")
    short = await create_message(app, claim, supplier, body="Short.")
    payload = {"messageId": message.id, "recipientId": customer.id}

    recipient, push = await _compose(app, lambda s: message_push(s, payload))
    _, plain = await _compose(app, lambda s: message_push(s, payload | {"messageId": short.id}))

    assert recipient == customer.id
    assert push == PushNotification(
        title=f"Sam <Support> \u2013 claim #{claim.id} (Espresso machine)",
        message="x" * 139 + "\u2026",  # 141 characters: cut to 140 with the ellipsis
        data={"type": "new_message", "claimId": str(claim.id), "messageId": str(message.id)},
        thread=f"claim-{claim.id}",
    )
    assert plain.message == "Short." and plain.thread == claim_thread(claim.id)


async def test_an_attachment_alone_and_a_deleted_sender_are_said_so(app: FastAPI) -> None:
    customer, supplier, _claim, message = await claim_with_message(app, "")
    async with app.state.sessionmaker() as session, session.begin():
        await session.delete(await session.get(User, supplier.id))
    payload = {"messageId": message.id, "recipientId": customer.id}

    _, push = await _compose(app, lambda s: message_push(s, payload))
    email = await _compose(app, lambda s: message_email(s, payload, app.state.settings, app.state.storage))

    assert push.message == "Sent an attachment" and push.title.startswith("Deleted user \u2013 claim #")
    assert "Deleted user" in email.text and "Attached: invoice.pdf" in email.text


async def test_a_message_email_whose_file_is_gone_goes_without_it(
    app: FastAPI, caplog: pytest.LogCaptureFixture
) -> None:
    customer, _supplier, claim, message = await claim_with_message(app, "See the bill")
    app.state.storage.discard([message.attachment_key])
    await app.state.storage.drain()
    assert not await app.state.storage.exists(message.attachment_key)
    payload = {"messageId": message.id, "recipientId": customer.id}

    with caplog.at_level(logging.WARNING, logger="app.notifications.compose"):
        email = await _compose(
            app, lambda s: message_email(s, payload, app.state.settings, app.state.storage)
        )

    assert (email.to, email.claim_id, email.attachments) == ("ann@example.com", claim.id, [])
    assert "See the bill" in email.text and "Attached:" not in email.text
    assert f"attachment of message {message.id} is gone" in caplog.text


async def test_a_status_is_named_by_its_label_and_an_unknown_one_as_it_is(app: FastAPI) -> None:
    customer, _supplier, claim, _message = await claim_with_message(app)
    payload: dict[str, object] = {"claimId": claim.id, "recipientId": customer.id, "status": "in_progress"}

    email = await _compose(app, lambda s: status_email(s, payload, app.state.settings))
    _, push = await _compose(app, lambda s: status_push(s, payload))
    _, odd = await _compose(app, lambda s: status_push(s, payload | {"status": "on_hold"}))

    assert email.subject == f"Your claim #{claim.id} \u2013 Espresso machine is now In progress"
    assert f"http://localhost:3000/claims/{claim.id}" in email.text and "Outcome" not in email.text
    assert push == PushNotification(
        title=f"Claim #{claim.id} (Espresso machine)",
        message="Status: In progress",
        data={"type": "status_update", "claimId": str(claim.id), "status": "in_progress"},
        thread=f"claim-{claim.id}",
    )
    assert odd.message == "Status: on_hold"


async def test_a_one_month_extension_is_one_month(app: FastAPI) -> None:
    customer, _supplier, claim, _message = await claim_with_message(app)
    extension = {"months": 1, "startsOn": "2027-01-01", "endsOn": "2027-01-31"}
    payload: dict[str, object] = {
        "claimId": claim.id, "recipientId": customer.id, "status": "resolved", "outcome": "refunded",
        "warrantyExtension": extension,
    }  # fmt: skip

    email = await _compose(app, lambda s: status_email(s, payload, app.state.settings))

    assert "Outcome: Refunded" in email.text and "Note:" not in email.text
    assert "New warranty: 1 month, from 2027-01-01 to 2027-01-31" in email.text


async def test_nothing_to_say_of_a_claim_that_is_gone_and_skipped_for_who_left_it(app: FastAPI) -> None:
    customer, supplier, claim, _message = await claim_with_message(app)
    stranger = await create_user(app)

    async with app.state.sessionmaker() as session:
        assert await claim_context(session, claim.id + 1000, {"recipientId": customer.id}) is None
        assert await claim_context(session, claim.id, {"recipientId": stranger.id + 1000}) is None
        with pytest.raises(Skipped, match="no longer a participant"):
            await claim_context(session, claim.id, {"recipientId": stranger.id})
        context = await claim_context(session, claim.id, {"recipientId": supplier.id})
    assert context is not None and context.recipient.id == supplier.id
    assert context.link(app.state.settings) == f"http://localhost:3000/claims/{claim.id}"


async def test_no_email_for_a_recipient_who_turned_email_off(
    app: FastAPI, worker: OutboxWorker, inbox: Inbox
) -> None:
    quiet = await create_user(app, email="quiet@example.com", email_notifications_enabled=False)
    loud = await create_user(app, email="loud@example.com")
    product = await create_product(app, quiet)
    claim = await create_claim(app, product, supplier=loud)
    message = await create_message(app, claim, loud)
    await notify_message(app, message, [quiet])

    await worker.run_until_idle()

    assert inbox.messages == []
    assert [row.kind for row in await outbox_rows(app)] == ["push.claim_message"]


async def test_a_message_deleted_before_sending_is_skipped(
    app: FastAPI, worker: OutboxWorker, inbox: Inbox
) -> None:
    customer, _supplier, _claim, message = await claim_with_message(app)
    await notify_message(app, message, [customer])
    async with app.state.sessionmaker() as session, session.begin():
        await session.delete(await session.get(Message, message.id))

    await worker.run_until_idle()

    assert inbox.messages == []
    assert {row.status for row in await outbox_rows(app)} == {"done"}


async def test_a_retry_after_the_recipient_left_the_claim_is_skipped(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    customer = await create_user(app, email="ann@example.com")
    supplier = await create_supplier(app, email="sam@example.com")
    claim = await create_claim(app, await create_product(app, customer), supplier=supplier)
    message = await create_message(app, claim, customer, body="Any news?")
    await notify_message(app, message, [supplier])
    await notify_status(app, claim, [supplier, customer])
    inbox.stop()
    await worker.run_until_idle()  # every first attempt fails: the mail server is down
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(Claim).where(Claim.id == claim.id).values(supplier_id=None))

    inbox.start()
    with frozen_time(utc_now() + timedelta(hours=2)):
        await worker.run_until_idle()

    assert [email["To"] for email in inbox.messages] == ["ann@example.com"]
    by_recipient = {(row.kind, row.payload["recipientId"]): row for row in await outbox_rows(app)}
    assert by_recipient[("email.claim_status", customer.id)].status == "done"
    for kind in ("email.claim_message", "email.claim_status"):  # (push went out at once: log backend)
        row = by_recipient[(kind, supplier.id)]
        assert row.status == "skipped" and "no longer a participant" in (row.last_error or ""), kind
    admin = await create_admin(app)
    listed = await client.get("/api/admin/notifications?status=skipped", headers=auth_headers(app, admin))
    assert listed.status_code == 200 and listed.json()["meta"]["total"] == 2


async def test_status_push_and_no_push_for_users_who_turned_it_off(
    app: FastAPI, client: httpx.AsyncClient, gorush: Gorush, push_worker: OutboxWorker
) -> None:
    customer = await create_user(app)
    muted = await create_supplier(app, notifications_enabled=False, email_notifications_enabled=False)
    claim = await create_claim(app, await create_product(app, customer), supplier=muted)
    await register_device(client, auth_headers(app, customer), "c-1", "web")
    await register_device(client, auth_headers(app, muted), "m-1", "ios")
    claim.status = "resolved"
    await notify_status(app, claim, [customer, muted])

    await push_worker.run_until_idle()

    gorush.assert_all_accepted()
    [push_sent] = gorush.delivered
    assert push_sent.token == "c-1" and push_sent.platform == ANDROID
    assert push_sent.payload["data"] == {
        "type": "status_update",
        "claimId": str(claim.id),
        "status": "resolved",
    }


async def test_the_resolution_email_asks_the_customer_alone_for_a_rating(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    cast = await resolved_cast(app, client, {"status": "resolved"})
    await worker.run_until_idle()
    link = f"{app.state.settings.frontend_url.rstrip('/')}/claims/{cast.claim.id}/rating"
    [email] = inbox.to("ann@example.com")
    text, html = _parts(email)
    assert f"Rate the service within 14 days: {link}" in text
    assert f'<a href="{link}">Rate the service</a>' in html

    closed = await client.post(f"/api/claims/{cast.claim.id}/close", headers=auth_headers(app, cast.customer))
    assert closed.status_code == 200, closed.text
    await worker.run_until_idle()
    [to_supplier] = inbox.to(cast.supplier.email)
    text, html = _parts(to_supplier)
    assert "is now: Closed" in text and "/rating" not in text and "/rating" not in html
