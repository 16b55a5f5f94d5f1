"""Warranty expiry alerts: exactly once per (product, threshold, expiry date), re-armed by new dates."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, timedelta

import httpx
from fastapi import FastAPI

from app.core.clock import frozen_time
from app.models import Product, User
from app.outbox.worker import OutboxWorker
from app.products.expiry_alerts import send_expiry_alerts
from tests.factories.notifications import outbox_rows
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_user
from tests.support.smtp import Inbox

EXPIRES = date(2027, 3, 31)


def _day(days_before_expiry: int) -> datetime:
    return datetime.combine(
        EXPIRES - timedelta(days=days_before_expiry), datetime.min.time(), UTC
    ) + timedelta(hours=9)


async def _run(app: FastAPI) -> int:
    return await send_expiry_alerts(app.state.sessionmaker, app.state.settings)


async def _product(app: FastAPI, **owner: object) -> Product:
    user = await create_user(app, email="ann@example.com", name="Ann", **owner)
    # 2025-03-31 + 24 months = 2027-03-31
    return await create_product(app, user, name="Espresso machine", purchase_date=date(2025, 3, 31))


async def _alerts(app: FastAPI) -> list[tuple[str, int]]:
    return [(row.kind, row.payload["thresholdDays"]) for row in await outbox_rows(app)]


async def test_each_threshold_alerts_once_however_often_the_job_runs(app: FastAPI) -> None:
    await _product(app)
    with frozen_time(_day(40)):
        assert await _run(app) == 0
    with frozen_time(_day(20)):
        results = await asyncio.gather(_run(app), _run(app), _run(app))
        assert sorted(results) == [0, 0, 1]
        assert await _run(app) == 0
    assert await _alerts(app) == [("email.expiry_alert", 30), ("push.expiry_alert", 30)]

    with frozen_time(_day(6)):
        await asyncio.gather(_run(app), _run(app))
        await _run(app)
    with frozen_time(_day(0)):
        assert await _run(app) == 0
    with frozen_time(_day(-1)):
        assert await _run(app) == 0

    assert await _alerts(app) == [
        ("email.expiry_alert", 30),
        ("push.expiry_alert", 30),
        ("email.expiry_alert", 7),
        ("push.expiry_alert", 7),
    ]


async def test_first_seen_inside_both_windows_sends_only_the_smallest(app: FastAPI) -> None:
    await _product(app)
    with frozen_time(_day(5)):
        assert await _run(app) == 1
    with frozen_time(_day(3)):
        assert await _run(app) == 0
    assert await _alerts(app) == [("email.expiry_alert", 7), ("push.expiry_alert", 7)]


async def test_new_dates_re_arm_the_alerts(app: FastAPI) -> None:
    product = await _product(app)
    with frozen_time(_day(20)):
        assert await _run(app) == 1
    async with app.state.sessionmaker() as session, session.begin():
        stored = await session.get(Product, product.id)
        assert stored is not None
        stored.warranty_expires_on = EXPIRES + timedelta(days=10)  # e.g. the purchase date was corrected

    with frozen_time(_day(20)):
        assert await _run(app) == 1
    [first, _, second, _] = await outbox_rows(app)
    assert first.payload["expiresOn"] == "2027-03-31" and second.payload["expiresOn"] == "2027-04-10"


async def test_owner_settings_choose_the_channels(app: FastAPI) -> None:
    await _product(app, email_notifications_enabled=False)
    with frozen_time(_day(20)):
        assert await _run(app) == 1
    assert await _alerts(app) == [("push.expiry_alert", 30)]


async def test_the_alert_email_arrives(app: FastAPI, worker: OutboxWorker, inbox: Inbox) -> None:
    product = await _product(app)
    with frozen_time(_day(7)):
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
    product = await _product(app)
    with frozen_time(_day(7)):
        await _run(app)
    async with app.state.sessionmaker() as session, session.begin():
        stored = await session.get(Product, product.id)
        assert stored is not None
        stored.warranty_expires_on = EXPIRES + timedelta(days=365)

    with frozen_time(_day(7)):
        await worker.run_until_idle()

    assert inbox.messages == []
    assert {row.status for row in await outbox_rows(app)} == {"done"}


async def _owner_headers(app: FastAPI, product: Product) -> dict[str, str]:
    """For requests made outside frozen time: tokens are checked against the real clock too."""
    async with app.state.sessionmaker() as session:
        owner = await session.get(User, product.owner_id)
    assert owner is not None
    return auth_headers(app, owner)


async def _void(
    client: httpx.AsyncClient, product: Product, headers: dict[str, str], action: str = "void"
) -> None:
    body = {"reason": "Water damage"} if action == "void" else None
    response = await client.post(f"/api/products/{product.id}/warranty/{action}", json=body, headers=headers)
    assert response.status_code == 200, response.text


async def test_a_voided_warranty_is_alerted_only_once_unvoided(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    product = await _product(app)
    headers = await _owner_headers(app, product)
    await _void(client, product, headers)
    with frozen_time(_day(20)):
        assert await _run(app) == 0
    await _void(client, product, headers, "unvoid")
    with frozen_time(_day(20)):
        assert await _run(app) == 1
    assert await _alerts(app) == [("email.expiry_alert", 30), ("push.expiry_alert", 30)]


async def test_an_alert_queued_before_the_void_is_not_sent(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    product = await _product(app)
    headers = await _owner_headers(app, product)
    with frozen_time(_day(7)):
        assert await _run(app) == 1
    await _void(client, product, headers)
    with frozen_time(_day(7)):
        await worker.run_until_idle()

    assert inbox.messages == []
    assert {row.status for row in await outbox_rows(app)} == {"done"}


async def test_an_end_day_given_directly_is_alerted(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    owner = await create_user(app, email="ann@example.com", name="Ann")
    new = {"name": "Drill", "brand": "Makita", "category": "Tools", "purchaseDate": "2026-01-01"}
    body = new | {"warrantyEndsOn": "2027-03-31"}
    response = await client.post("/api/products", json=body, headers=auth_headers(app, owner))
    assert response.status_code == 201, response.text
    with frozen_time(_day(7)):
        assert await _run(app) == 1
        await worker.run_until_idle()

    [email] = inbox.messages
    assert email["Subject"] == "The warranty of Drill expires in 7 days"
