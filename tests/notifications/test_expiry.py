"""The expiry job (app/products/expiry_alerts.py) as the notifications see it: an alert recorded exactly once
per (product, threshold, expiry date), re-armed by new dates, on the owner's channels, none while the
warranty is voided. What each alert says when it is sent: test_expiry_notices.py."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import httpx
from fastapi import FastAPI

from app.core.clock import frozen_time
from app.models import Product
from app.outbox.worker import OutboxWorker
from tests.factories.notifications import outbox_rows
from tests.factories.users import auth_headers, create_user
from tests.notifications.support import (
    EXPIRES,
    day_before_expiry,
    expiring_product,
    owner_headers,
    run_expiry_job,
    void_warranty,
)
from tests.support.smtp import Inbox


async def _alerts(app: FastAPI) -> list[tuple[str, int]]:
    return [(row.kind, row.payload["thresholdDays"]) for row in await outbox_rows(app)]


async def test_each_threshold_alerts_once_however_often_the_job_runs(app: FastAPI) -> None:
    await expiring_product(app)
    with frozen_time(day_before_expiry(40)):
        assert await run_expiry_job(app) == 0
    with frozen_time(day_before_expiry(20)):
        results = await asyncio.gather(run_expiry_job(app), run_expiry_job(app), run_expiry_job(app))
        assert sorted(results) == [0, 0, 1]
        assert await run_expiry_job(app) == 0
    assert await _alerts(app) == [("email.expiry_alert", 30), ("push.expiry_alert", 30)]

    with frozen_time(day_before_expiry(6)):
        await asyncio.gather(run_expiry_job(app), run_expiry_job(app))
        await run_expiry_job(app)
    with frozen_time(day_before_expiry(0)):
        assert await run_expiry_job(app) == 0
    with frozen_time(day_before_expiry(-1)):
        assert await run_expiry_job(app) == 0

    assert await _alerts(app) == [
        ("email.expiry_alert", 30),
        ("push.expiry_alert", 30),
        ("email.expiry_alert", 7),
        ("push.expiry_alert", 7),
    ]


async def test_first_seen_inside_both_windows_sends_only_the_smallest(app: FastAPI) -> None:
    await expiring_product(app)
    with frozen_time(day_before_expiry(5)):
        assert await run_expiry_job(app) == 1
    with frozen_time(day_before_expiry(3)):
        assert await run_expiry_job(app) == 0
    assert await _alerts(app) == [("email.expiry_alert", 7), ("push.expiry_alert", 7)]


async def test_new_dates_re_arm_the_alerts(app: FastAPI) -> None:
    product = await expiring_product(app)
    with frozen_time(day_before_expiry(20)):
        assert await run_expiry_job(app) == 1
    async with app.state.sessionmaker() as session, session.begin():
        stored = await session.get(Product, product.id)
        assert stored is not None
        stored.warranty_expires_on = EXPIRES + timedelta(days=10)  # e.g. the purchase date was corrected

    with frozen_time(day_before_expiry(20)):
        assert await run_expiry_job(app) == 1
    [first, _, second, _] = await outbox_rows(app)
    assert first.payload["expiresOn"] == "2027-03-31" and second.payload["expiresOn"] == "2027-04-10"


async def test_owner_settings_choose_the_channels(app: FastAPI) -> None:
    await expiring_product(app, email_notifications_enabled=False)
    with frozen_time(day_before_expiry(20)):
        assert await run_expiry_job(app) == 1
    assert await _alerts(app) == [("push.expiry_alert", 30)]


async def test_a_voided_warranty_is_alerted_only_once_unvoided(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    product = await expiring_product(app)
    headers = await owner_headers(app, product)
    await void_warranty(client, product, headers)
    with frozen_time(day_before_expiry(20)):
        assert await run_expiry_job(app) == 0
    await void_warranty(client, product, headers, "unvoid")
    with frozen_time(day_before_expiry(20)):
        assert await run_expiry_job(app) == 1
    assert await _alerts(app) == [("email.expiry_alert", 30), ("push.expiry_alert", 30)]


async def test_an_end_day_given_directly_is_alerted(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    owner = await create_user(app, email="ann@example.com", name="Ann")
    new = {"name": "Drill", "brand": "Makita", "category": "Tools", "purchaseDate": "2026-01-01"}
    body = new | {"warrantyEndsOn": "2027-03-31"}
    response = await client.post("/api/products", json=body, headers=auth_headers(app, owner))
    assert response.status_code == 201, response.text
    with frozen_time(day_before_expiry(7)):
        assert await run_expiry_job(app) == 1
        await worker.run_until_idle()

    [email] = inbox.messages
    assert email["Subject"] == "The warranty of Drill expires in 7 days"
