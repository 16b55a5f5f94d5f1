"""The expiry alert's email and push (app/notifications/expiry_notices.py), composed at send time from the
product and its owner: how many days are left in words, the owner's channels, and nothing once the alert
has gone stale (the dates changed, the warranty voided or over, the product or its owner gone)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from app.models import Product
from app.notifications.expiry_notices import expiry_email, expiry_push
from app.notifications.push import PushNotification
from app.outbox.worker import OutboxWorker
from tests.factories.notifications import outbox_rows
from tests.factories.users import create_user
from tests.notifications.support import (
    EXPIRES,
    day_before_expiry,
    expiring_product,
    owner_headers,
    run_expiry_job,
    void_warranty,
)
from tests.support.smtp import Inbox


async def _notices(app: FastAPI, product: Product, days: int, **changed: Any) -> tuple[Any, Any]:
    """The email and the push of the alert for `product`, composed `days` days before EXPIRES."""
    payload = {
        "productId": product.id, "recipientId": product.owner_id, "expiresOn": EXPIRES.isoformat(),
        "thresholdDays": 7,
    } | changed  # fmt: skip
    with frozen_time(day_before_expiry(days)):
        async with app.state.sessionmaker() as session:
            email = await expiry_email(session, payload, app.state.settings)
            push = await expiry_push(session, payload)
    return email, push


@pytest.mark.parametrize(
    ("days", "words"), [(7, "in 7 days"), (2, "in 2 days"), (1, "tomorrow"), (0, "today")]
)
async def test_the_days_left_are_said_in_words_in_the_email_and_the_push(
    app: FastAPI, days: int, words: str
) -> None:
    product = await expiring_product(app)

    email, (recipient, push) = await _notices(app, product, days)

    assert (email.to, email.subject) == (
        "ann@example.com",
        f"The warranty of Espresso machine expires {words}",
    )
    assert f"http://localhost:3000/products/{product.id}" in email.text and "2027-03-31" in email.text
    assert recipient == product.owner_id
    assert push == PushNotification(
        title="Warranty expiring",
        message=f"The warranty of Espresso machine expires {words}.",
        data={"type": "warranty_expiring", "productId": str(product.id), "expiresOn": "2027-03-31"},
        thread=f"product-{product.id}",
    )


@pytest.mark.parametrize(
    ("owner", "email_sent", "push_sent"),
    [
        ({"email_notifications_enabled": False}, False, True),
        ({"notifications_enabled": False}, True, False),
    ],
    ids=["email off", "push off"],
)
async def test_each_channel_follows_the_owners_setting_at_send_time(
    app: FastAPI, owner: dict[str, bool], email_sent: bool, push_sent: bool
) -> None:
    product = await expiring_product(app, **owner)

    email, push = await _notices(app, product, 7)

    assert (email is not None, push is not None) == (email_sent, push_sent)


async def test_an_alert_that_has_gone_stale_says_nothing(app: FastAPI) -> None:
    product = await expiring_product(app)
    stranger = await create_user(app)

    assert await _notices(app, product, 7, expiresOn="2027-04-10") == (None, None)  # dates changed since
    assert await _notices(app, product, -1) == (None, None)  # the warranty is over
    assert await _notices(app, product, 7, recipientId=stranger.id) == (None, None)  # not the owner
    assert await _notices(app, product, 7, productId=product.id + 1000) == (None, None)  # gone
    assert await _notices(app, product, 7, recipientId=stranger.id + 1000) == (None, None)


async def test_the_alert_email_arrives(app: FastAPI, worker: OutboxWorker, inbox: Inbox) -> None:
    product = await expiring_product(app)
    with frozen_time(day_before_expiry(7)):
        await worker.run_daily()  # the worker's daily run
        await worker.run_until_idle()

    [email] = inbox.messages
    assert email["To"] == "ann@example.com"
    assert email["Subject"] == "The warranty of Espresso machine expires in 7 days"
    text = email.get_body(preferencelist=("plain",))
    assert text is not None
    assert "2027-03-31" in text.get_content() and f"/products/{product.id}" in text.get_content()
    assert email["Auto-Submitted"] == "auto-generated"


async def test_a_stale_alert_is_not_sent(app: FastAPI, worker: OutboxWorker, inbox: Inbox) -> None:
    product = await expiring_product(app)
    with frozen_time(day_before_expiry(7)):
        await run_expiry_job(app)
    async with app.state.sessionmaker() as session, session.begin():
        stored = await session.get(Product, product.id)
        assert stored is not None
        stored.warranty_expires_on = EXPIRES + timedelta(days=365)

    with frozen_time(day_before_expiry(7)):
        await worker.run_until_idle()

    assert inbox.messages == []
    assert {row.status for row in await outbox_rows(app)} == {"done"}


async def test_an_alert_queued_before_the_void_is_not_sent(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    product = await expiring_product(app)
    headers = await owner_headers(app, product)
    with frozen_time(day_before_expiry(7)):
        assert await run_expiry_job(app) == 1
    await void_warranty(client, product, headers)
    with frozen_time(day_before_expiry(7)):
        await worker.run_until_idle()

    assert inbox.messages == []
    assert {row.status for row in await outbox_rows(app)} == {"done"}
