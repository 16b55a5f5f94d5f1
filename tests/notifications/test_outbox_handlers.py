"""The notifications' outbox handlers (app/notifications/outbox_handlers.py), with the real senders (the test
SMTP server, the test gorush): one per email and push kind, each composing in a short session of its own
and sending outside it; nothing sent when there is nothing to say or no device, tokens the gateway
reports gone forgotten, and a password reset's token minted at send time and dropped when the send fails."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.core.clock import frozen_time, utc_now
from app.models import Message, PasswordResetToken
from app.models.enums import OutboxKind
from app.notifications.email import SmtpSender
from app.notifications.outbox_handlers import Delivery
from app.notifications.push import GorushPush
from app.outbox.worker import OutboxWorker
from tests.factories.claims import create_claim, create_message
from tests.factories.notifications import notify_status, outbox_rows
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_user
from tests.notifications.support import claim_with_message, device_tokens, register_device
from tests.support.gorush import Gorush
from tests.support.smtp import SMTP_URL, Inbox

NEW_PASSWORD = "a brand new passphrase"


def _delivery(app: FastAPI, pusher: GorushPush) -> Delivery:
    state = app.state
    mailer = SmtpSender(SMTP_URL, timeout=5)
    return Delivery(state.settings, state.sessionmaker, state.storage, mailer=mailer, pusher=pusher)


async def test_every_email_and_push_kind_has_its_handler(app: FastAPI, pusher: GorushPush) -> None:
    handled = set(_delivery(app, pusher).handlers())

    assert handled == {kind for kind in OutboxKind if kind.startswith(("email.", "push."))}


async def test_a_push_goes_to_each_device_of_its_recipient_and_nowhere_without_one(
    app: FastAPI, client: httpx.AsyncClient, gorush: Gorush, pusher: GorushPush
) -> None:
    customer, supplier, claim, _message = await claim_with_message(app)
    for token, platform in (("ok-ann-phone", "ios"), ("ok-ann-tablet", "android")):
        assert (
            await register_device(client, auth_headers(app, customer), token, platform)
        ).status_code == 201
    push = _delivery(app, pusher).handlers()[OutboxKind.PUSH_CLAIM_STATUS]

    await push({"claimId": claim.id, "recipientId": customer.id, "status": "in_progress"})
    await push({"claimId": claim.id, "recipientId": supplier.id, "status": "in_progress"})

    assert len(gorush.requests) == 1  # the supplier has no device: nothing was asked of the gateway
    assert sorted(item.token for item in gorush.delivered) == ["ok-ann-phone", "ok-ann-tablet"]


async def test_an_email_with_nothing_left_to_say_is_not_sent(
    app: FastAPI, inbox: Inbox, pusher: GorushPush
) -> None:
    customer, supplier, claim, message = await claim_with_message(app)
    gone = await create_message(app, claim, supplier, body="Soon deleted")
    async with app.state.sessionmaker() as session, session.begin():
        await session.delete(await session.get(Message, gone.id))
    email = _delivery(app, pusher).handlers()[OutboxKind.EMAIL_CLAIM_MESSAGE]

    await email({"messageId": gone.id, "claimId": claim.id, "recipientId": customer.id})
    assert inbox.messages == []
    await email({"messageId": message.id, "claimId": claim.id, "recipientId": customer.id})
    assert [sent["To"] for sent in inbox.messages] == ["ann@example.com"]


async def test_a_reset_email_is_sent_whatever_the_setting_and_a_failed_one_leaves_no_token(
    app: FastAPI, inbox: Inbox, pusher: GorushPush
) -> None:
    await create_user(app, email="ann@example.com", email_notifications_enabled=False)
    reset = _delivery(app, pusher).handlers()[OutboxKind.EMAIL_PASSWORD_RESET]

    async def tokens() -> int:
        async with app.state.sessionmaker() as session:
            return int(await session.scalar(select(func.count()).select_from(PasswordResetToken)) or 0)

    await reset({"email": "nobody@example.com"})
    assert (inbox.messages, await tokens()) == ([], 0)
    inbox.stop()
    with pytest.raises(OSError):
        await reset({"email": " Ann@Example.com "})
    assert await tokens() == 0  # unsent: forgotten, so the retry is not taken for a flood of requests
    inbox.start()
    await reset({"email": "ann@example.com"})
    assert [sent["To"] for sent in inbox.messages] == ["ann@example.com"]
    assert await tokens() == 1


async def test_tokens_gorush_reports_gone_or_invalid_are_deleted(
    app: FastAPI, client: httpx.AsyncClient, gorush: Gorush, push_worker: OutboxWorker
) -> None:
    customer = await create_user(app, email_notifications_enabled=False)
    claim = await create_claim(app, await create_product(app, customer))
    headers = auth_headers(app, customer)
    # Long like real tokens: gorush's masked form of each is unique.
    tokens = {
        f"{prefix}{platform}-" + "7" * 40: platform
        for prefix in ("ok-", "gone-", "bad-", "flaky-")
        for platform in ("ios", "android")
    }
    for token, platform in tokens.items():
        assert (await register_device(client, headers, token, platform)).status_code == 201
    await notify_status(app, claim, [customer])

    await push_worker.run_until_idle()

    [response] = gorush.requests
    assert await device_tokens(app) == {token for token in tokens if token.startswith(("ok-", "flaky-"))}
    assert {item.token for item in gorush.delivered} == {t for t in tokens if t.startswith("ok-")}
    [row] = await outbox_rows(app, "push.claim_status")
    assert row.status == "done"
    assert response["path"] == "/api/push"


async def test_a_reset_email_that_failed_is_sent_on_retry(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    await create_user(app, email="ann@example.com")
    inbox.stop()
    await client.post("/api/password/forgot", json={"email": "ann@example.com"})
    await worker.run_until_idle()
    inbox.start()

    with frozen_time(utc_now() + timedelta(seconds=10)):
        await worker.run_until_idle()

    [email] = inbox.messages
    text = email.get_body(preferencelist=("plain",))
    assert text is not None
    token = text.get_content().split("reset-password?token=")[1].split()[0]
    with frozen_time(utc_now() + timedelta(seconds=20)):
        reset = await client.post("/api/password/reset", json={"token": token, "password": NEW_PASSWORD})
    assert reset.status_code == 204
