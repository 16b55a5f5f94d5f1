"""The expiry alerts job (app.products.expiry_alerts) on its own: which products are due today, the
alert recorded for the smallest threshold each is within (the larger ones covered, never sent late),
each (product, threshold, expiry day) once however often the job runs, and products read in chunks.
What the alerts become (emails, pushes, webhooks) is tested with the notifications
(tests/notifications/test_expiry.py, test_expiry_notices.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.changes.events import WarrantiesExpiring
from app.core.clock import frozen_time, utc_now
from app.models import ExpiryAlert, Product
from app.products import expiry_alerts
from tests.conftest import SettingsFactory
from tests.factories.products import create_product
from tests.factories.users import create_user

TODAY = date(2026, 5, 4)


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[WarrantiesExpiring]:
    """The changes the job records (in place of their consequences)."""
    changes: list[WarrantiesExpiring] = []

    async def record(_session: AsyncSession, change: Any) -> None:
        changes.append(change)

    monkeypatch.setattr(expiry_alerts, "record", record)
    return changes


async def _expiring_in(app: FastAPI, days: int, **fields: Any) -> Product:
    """A product of its own owner whose warranty ends `days` after TODAY."""
    product = await create_product(app, await create_user(app), **fields)
    ends_on = TODAY + timedelta(days=days)
    async with app.state.sessionmaker() as session, session.begin():
        stored = await session.get_one(Product, product.id)
        stored.warranty_period_months, stored.warranty_ends_on, stored.warranty_expires_on = (
            None,
            ends_on,
            ends_on,
        )
    return product


async def _run(app: FastAPI) -> int:
    with frozen_time(datetime.combine(TODAY, datetime.min.time(), UTC) + timedelta(hours=6)):
        return await expiry_alerts.send_expiry_alerts(app.state.sessionmaker, app.state.settings)


async def _alert_rows(app: FastAPI) -> set[tuple[int, int, date]]:
    async with app.state.sessionmaker() as session:
        rows = await session.execute(
            select(ExpiryAlert.product_id, ExpiryAlert.threshold_days, ExpiryAlert.expires_on)
        )
        return {tuple(row) for row in rows}  # type: ignore[misc]


async def test_each_product_due_is_alerted_once_for_the_smallest_threshold_it_is_within(
    app: FastAPI, recorded: list[WarrantiesExpiring]
) -> None:
    inside_both = await _expiring_in(app, 5)
    inside_one = await _expiring_in(app, 20)
    last_day = await _expiring_in(app, 0)
    await _expiring_in(app, 31)  # not yet
    await _expiring_in(app, -1)  # expired yesterday
    await _expiring_in(app, 5, warranty_voided_at=utc_now(), warranty_void_reason="Opened")

    assert await _run(app) == 3

    [change] = recorded
    alerted = [(alert.product.id, alert.threshold_days, alert.days_left) for alert in change.alerts]
    assert alerted == [(inside_both.id, 7, 5), (inside_one.id, 30, 20), (last_day.id, 7, 0)]
    assert {alert.product.owner_id for alert in change.alerts} == {
        product.owner_id for product in (inside_both, inside_one, last_day)
    }
    assert await _alert_rows(app) == {
        (inside_both.id, 30, TODAY + timedelta(days=5)),  # covered: never sent late
        (inside_both.id, 7, TODAY + timedelta(days=5)),
        (inside_one.id, 30, TODAY + timedelta(days=20)),
        (last_day.id, 30, TODAY),
        (last_day.id, 7, TODAY),
    }

    assert await _run(app) == 0  # the same day again: nothing new
    assert recorded[-1].alerts == ()
    assert len(await _alert_rows(app)) == 5


async def test_products_are_read_in_chunks_each_chunk_recorded_on_its_own(
    app: FastAPI, recorded: list[WarrantiesExpiring], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(expiry_alerts, "CHUNK", 2)
    products = [await _expiring_in(app, 3) for _ in range(5)]

    assert await _run(app) == 5

    assert [[alert.product.id for alert in change.alerts] for change in recorded] == [
        [products[0].id, products[1].id],
        [products[2].id, products[3].id],
        [products[4].id],
    ]


async def test_without_thresholds_nothing_is_read(
    app: FastAPI, recorded: list[WarrantiesExpiring], make_settings: SettingsFactory
) -> None:
    await _expiring_in(app, 3)
    settings = make_settings(expiry_alert_days=[])

    with frozen_time(datetime.combine(TODAY, datetime.min.time(), UTC)):
        assert await expiry_alerts.send_expiry_alerts(app.state.sessionmaker, settings) == 0

    assert recorded == [] and await _alert_rows(app) == set()
