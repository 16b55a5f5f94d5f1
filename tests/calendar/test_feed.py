"""The calendar feed's text (app/calendar/feed.py, contract 15.2): what a calendar app reads at the feed URL,
parsed back with the `icalendar` package: one all-day event per product with its alarms, the same text on
every fetch, no control character. The token and its routes are in test_router.py, which products a feed
shows in test_repository.py."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi import FastAPI
from icalendar import Calendar

from app.core.clock import frozen_time
from tests.calendar.support import events_of, feed_path
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_user

NOW = datetime(2026, 3, 10, 12, 30, tzinfo=UTC)


async def test_the_feed_has_one_all_day_event_per_product_with_its_alarms(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    with frozen_time(NOW):
        machine = await create_product(
            app, owner, name="Espresso, machine; \"deluxe\"", purchase_date=date(2024, 1, 31),
            warranty_period_months=25,
        )  # fmt: skip
        kettle = await create_product(
            app, owner, name="Kettle", brand="Bosch", category="Kitchen", purchase_date=date(2025, 6, 1),
            warranty_period_months=12,
        )  # fmt: skip
    path = await feed_path(client, auth_headers(app, owner))

    response = await client.get(path)  # no bearer token

    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/calendar; charset=utf-8"
    calendar = Calendar.from_ical(response.content)
    assert calendar.name == "VCALENDAR"
    assert str(calendar["VERSION"]) == "2.0"
    assert str(calendar["PRODID"]) == "-//Warranty//Warranty expiry dates//EN"
    assert str(calendar["CALSCALE"]) == "GREGORIAN"
    assert str(calendar["METHOD"]) == "PUBLISH"
    assert str(calendar["X-WR-CALNAME"]) == "Warranty expiry dates"
    assert calendar["REFRESH-INTERVAL"].dt == timedelta(hours=12)
    events = events_of(response.content)
    assert set(events) == {f"product-{machine.id}@127.0.0.1", f"product-{kettle.id}@127.0.0.1"}

    event = events[f"product-{machine.id}@127.0.0.1"]
    # 2024-01-31 + 25 months: February 2026 has no 31st, so its last day.
    assert event.decoded("DTSTART") == date(2026, 2, 28)
    assert event["DTSTART"].params["VALUE"] == "DATE"  # an all-day event
    assert event.decoded("DTEND") == date(2026, 3, 1)
    assert str(event["SUMMARY"]) == 'Warranty ends: Espresso, machine; "deluxe"'
    assert str(event["DESCRIPTION"]) == (
        'Gaggia Espresso, machine; "deluxe" (Kitchen), bought 2024-01-31. '
        "The warranty covers this day and ends after it."
    )
    assert str(event["URL"]) == f"http://localhost:3000/products/{machine.id}"
    assert str(event["TRANSP"]) == "TRANSPARENT"
    assert event.decoded("DTSTAMP") == NOW
    assert event.decoded("LAST-MODIFIED") == NOW
    alarms = event.walk("VALARM")
    assert [(str(a["ACTION"]), a.decoded("TRIGGER"), str(a["DESCRIPTION"])) for a in alarms] == [
        ("DISPLAY", timedelta(days=-30), 'The warranty of Espresso, machine; "deluxe" ends in 30 days'),
        ("DISPLAY", timedelta(days=-7), 'The warranty of Espresso, machine; "deluxe" ends in 7 days'),
    ]
    assert events[f"product-{kettle.id}@127.0.0.1"].decoded("DTSTART") == date(2026, 6, 1)


async def test_the_feed_reads_the_same_on_every_fetch(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app)
    await create_product(app, owner)
    path = await feed_path(client, auth_headers(app, owner))

    first, second = await client.get(path), await client.get(path)

    assert first.content == second.content  # stable UIDs and stamps: calendar apps see no change
    assert await feed_path(client, auth_headers(app, owner)) == path


async def test_an_edit_of_the_dates_moves_the_event(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)
    product = await create_product(app, owner, purchase_date=date(2026, 1, 15), warranty_period_months=24)
    path = await feed_path(client, headers)
    response = await client.patch(
        f"/api/products/{product.id}", json={"warrantyPeriodMonths": 36}, headers=headers
    )
    assert response.status_code == 200, response.text

    event = events_of((await client.get(path)).content)[f"product-{product.id}@127.0.0.1"]

    assert event.decoded("DTSTART") == date(2029, 1, 15)


@pytest.mark.settings(expiry_alert_days=["60", "14", "1"], base_url="https://warranty.example.com/")
async def test_alarms_follow_the_alert_thresholds(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app)
    product = await create_product(app, owner)
    response = await client.get("/api/me/calendar", headers=auth_headers(app, owner))
    url = response.json()["url"]
    assert url.startswith("https://warranty.example.com/api/calendar/") and url.endswith(".ics")
    assert response.json()["webcalUrl"] == "webcal://" + url.removeprefix("https://")

    event = events_of((await client.get(urlsplit(url).path)).content)[
        f"product-{product.id}@warranty.example.com"
    ]

    assert [alarm.decoded("TRIGGER") for alarm in event.walk("VALARM")] == [
        timedelta(days=-60),
        timedelta(days=-14),
        timedelta(days=-1),
    ]


async def test_an_owner_without_products_gets_an_empty_calendar(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    response = await client.get(await feed_path(client, auth_headers(app, owner)))
    assert response.status_code == 200
    assert Calendar.from_ical(response.content).walk("VEVENT") == []


async def test_control_characters_in_product_texts_never_reach_the_feed(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """RFC 5545 allows no control character in a text value (a strict calendar app drops the whole feed):
    each run of them in what a user wrote is one space; the lines end in CRLF and nothing else."""
    owner = await create_user(app)
    product = await create_product(
        app, owner, name="A\x0bB\x0cC", brand="Br\x1b\x7fand\u2028X", category="Kit\x85chen\u2029\x01\tY"
    )
    path = await feed_path(client, auth_headers(app, owner))

    response = await client.get(path)

    assert response.status_code == 200, response.text
    text = response.content.decode()
    lines = text.split("\r\n")
    assert lines[-1] == ""  # the feed ends with CRLF
    unsafe = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
    assert [line for line in lines if unsafe.search(line)] == []
    event = events_of(response.content)[f"product-{product.id}@127.0.0.1"]
    assert str(event["SUMMARY"]) == "Warranty ends: A B C"
    assert str(event["DESCRIPTION"]).startswith("Br and X A B C (Kit chen Y), bought 2026-01-15.")
    assert [str(alarm["DESCRIPTION"]) for alarm in event.walk("VALARM")] == [
        "The warranty of A B C ends in 30 days",
        "The warranty of A B C ends in 7 days",
    ]
