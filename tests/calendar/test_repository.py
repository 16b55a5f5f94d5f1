"""Calendar feeds in the database (app/calendar/repository.py): the feed token (issued once, shown again,
rotated, new after a change of signing key) and the products a feed shows (the owner's only, on their
effective expiry day, void warranties left out, the nearest ones when there are too many)."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.calendar.repository import CalendarRepository
from app.core.clock import frozen_time
from app.models import CalendarFeed
from tests.calendar.support import events_of, feed_path
from tests.conftest import SettingsFactory
from tests.factories.claims import create_claim
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_supplier, create_user
from tests.helpers import count_queries

NOW = datetime(2026, 3, 10, 12, 30, tzinfo=UTC)


async def test_a_feed_never_shows_another_users_products(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner, other = await create_user(app), await create_user(app)
    mine = await create_product(app, owner, name="Mine")
    await create_product(app, other, name="Theirs")
    owner_path = await feed_path(client, auth_headers(app, owner))
    other_path = await feed_path(client, auth_headers(app, other))
    assert owner_path != other_path

    events = events_of((await client.get(owner_path)).content)

    assert list(events) == [f"product-{mine.id}@127.0.0.1"]
    assert [str(e["SUMMARY"]) for e in events_of((await client.get(other_path)).content).values()] == [
        "Warranty ends: Theirs"
    ]


@pytest.mark.settings(calendar_max_events=4)
async def test_a_big_owner_gets_the_nearest_warranties_in_a_fixed_number_of_queries(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    path = await feed_path(client, auth_headers(app, owner))
    with frozen_time(NOW):  # today 2026-03-10
        for months in (1, 2, 30, 40, 50):  # bought 2024-01-01: ends 2024-02-01 ... 2028-03-01
            await create_product(app, owner, purchase_date=date(2024, 1, 1), warranty_period_months=months)
        with count_queries(app) as few:
            await client.get(path)
        for _ in range(20):
            await create_product(app, owner, purchase_date=date(2020, 1, 1), warranty_period_months=1)
        with count_queries(app) as many:
            response = await client.get(path)

    starts = sorted(event.decoded("DTSTART") for event in events_of(response.content).values())
    # Every one still running, then the most recently ended.
    assert starts == [date(2024, 3, 1), date(2026, 7, 1), date(2027, 5, 1), date(2028, 3, 1)]
    assert len(many) == len(few)


async def test_a_void_warranty_leaves_the_feed_until_unvoided(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)
    voided, kept = (
        await create_product(app, owner, name="Voided"),
        await create_product(app, owner, name="Kept"),
    )
    path = await feed_path(client, headers)
    products = f"/api/products/{voided.id}/warranty"
    assert (
        await client.post(f"{products}/void", json={"reason": "Opened."}, headers=headers)
    ).status_code == 200

    while_void = events_of((await client.get(path)).content)
    assert (await client.post(f"{products}/unvoid", headers=headers)).status_code == 200
    unvoided = events_of((await client.get(path)).content)

    assert list(while_void) == [f"product-{kept.id}@127.0.0.1"]
    assert sorted(unvoided) == sorted(f"product-{product.id}@127.0.0.1" for product in (voided, kept))


async def test_a_warranty_extension_moves_the_event(app: FastAPI, client: httpx.AsyncClient) -> None:
    customer = await create_user(app)
    supplier = await create_supplier(app)
    product = await create_product(app, customer, purchase_date=date(2024, 12, 1), warranty_period_months=24)
    claim = await create_claim(app, product, supplier=supplier, status="in_progress")
    path = await feed_path(client, auth_headers(app, customer))
    body = {"status": "resolved", "outcome": "repaired", "newWarrantyMonths": 60}
    resolved = await client.post(
        f"/api/claims/{claim.id}/status", json=body, headers=auth_headers(app, supplier)
    )
    assert resolved.status_code == 200, resolved.text

    event = events_of((await client.get(path)).content)[f"product-{product.id}@127.0.0.1"]

    assert event.decoded("DTSTART") == date.fromisoformat(resolved.json()["warrantyExtension"]["endsOn"])
    assert event.decoded("DTSTART") > date(2030, 1, 1)  # the extension's end, not the own 2026-12-01


async def test_a_token_is_issued_once_and_shown_again(
    app: FastAPI, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    """Two requests issue at once: the second's insert meets the first's row and takes its token."""
    owner, other = await create_user(app), await create_user(app)
    settings = app.state.settings

    async with sessionmaker() as session:
        assert await CalendarRepository(session).token_of(owner, settings) is None
    async with sessionmaker() as first, sessionmaker() as second:
        await first.begin()
        issued = await CalendarRepository(first).issue(owner, settings)
        await second.begin()
        racing = asyncio.create_task(CalendarRepository(second).issue(owner, settings))
        await asyncio.sleep(0.2)  # the second has read no feed and waits on the first's row
        await first.commit()
        assert await racing == issued
        await second.commit()

    async with sessionmaker() as session:
        feeds = CalendarRepository(session)
        assert await feeds.token_of(owner, settings) == issued
        assert await feeds.owner_of(issued, settings) == owner.id
        assert await feeds.token_of(other, settings) is None
        assert await session.scalar(select(func.count()).select_from(CalendarFeed)) == 1


async def test_a_new_signing_key_gives_a_new_token_and_the_old_one_stops_working(
    app: FastAPI, sessionmaker: async_sessionmaker[AsyncSession], make_settings: SettingsFactory
) -> None:
    owner = await create_user(app)
    before, after = (
        app.state.settings,
        make_settings(secret_key="another-secret-key-long-enough-0123456789abcdef"),
    )
    async with sessionmaker() as session, session.begin():
        old = await CalendarRepository(session).issue(owner, before)

    async with sessionmaker() as session, session.begin():
        feeds = CalendarRepository(session)
        assert await feeds.token_of(owner, after) is None  # not shown under the new key
        assert await feeds.owner_of(old, after) is None
        new = await feeds.issue(owner, after)

    async with sessionmaker() as session:
        feeds = CalendarRepository(session)
        assert new != old
        assert (await feeds.owner_of(new, after), await feeds.owner_of(old, before)) == (owner.id, None)


async def test_rotation_replaces_the_token_in_its_transaction(
    app: FastAPI, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    owner, settings = await create_user(app), app.state.settings
    async with sessionmaker() as session, session.begin():
        old = await CalendarRepository(session).issue(owner, settings)

    async with sessionmaker() as session:
        await session.begin()
        new = await CalendarRepository(session).rotate(owner, settings)
        await session.rollback()  # rolled back: the old token stands
        async with session.begin():
            assert await CalendarRepository(session).owner_of(old, settings) == owner.id
            newer = await CalendarRepository(session).rotate(owner, settings)

    async with sessionmaker() as session:
        feeds = CalendarRepository(session)
        assert len({old, new, newer}) == 3
        assert [await feeds.owner_of(token, settings) for token in (old, new, newer)] == [
            None,
            None,
            owner.id,
        ]
        assert await feeds.token_of(owner, settings) == newer


@pytest.mark.parametrize("token", ["", "A" * 42, "A" * 44, "A" * 42 + "=", "A" * 42 + "\n"])
async def test_a_token_not_shaped_like_one_opens_nothing(
    app: FastAPI, sessionmaker: async_sessionmaker[AsyncSession], token: str
) -> None:
    async with sessionmaker() as session:
        with count_queries(app) as asked:
            assert await CalendarRepository(session).owner_of(token, app.state.settings) is None
    assert asked == []  # refused by its shape, without a lookup
