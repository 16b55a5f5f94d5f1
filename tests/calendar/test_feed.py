"""The calendar feed (contract 15.2): what a calendar app reads at the feed URL, parsed back with the
`icalendar` package; the token, its rotation, and who sees what."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi import FastAPI
from icalendar import Calendar, Event

from app.core.clock import frozen_time
from tests.factories.claims import create_claim
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_supplier, create_user
from tests.helpers import assert_error, count_queries

NOW = datetime(2026, 3, 10, 12, 30, tzinfo=UTC)


async def _feed_path(client: httpx.AsyncClient, headers: dict[str, str]) -> str:
    response = await client.get("/api/me/calendar", headers=headers)
    assert response.status_code == 200, response.text
    return urlsplit(response.json()["url"]).path


def _events(body: bytes) -> dict[str, Event]:
    calendar = Calendar.from_ical(body)
    return {str(event["UID"]): event for event in calendar.walk("VEVENT")}


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
    path = await _feed_path(client, auth_headers(app, owner))

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
    events = _events(response.content)
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
    path = await _feed_path(client, auth_headers(app, owner))

    first, second = await client.get(path), await client.get(path)

    assert first.content == second.content  # stable UIDs and stamps: calendar apps see no change
    assert await _feed_path(client, auth_headers(app, owner)) == path


async def test_an_edit_of_the_dates_moves_the_event(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)
    product = await create_product(app, owner, purchase_date=date(2026, 1, 15), warranty_period_months=24)
    path = await _feed_path(client, headers)
    response = await client.patch(
        f"/api/products/{product.id}", json={"warrantyPeriodMonths": 36}, headers=headers
    )
    assert response.status_code == 200, response.text

    event = _events((await client.get(path)).content)[f"product-{product.id}@127.0.0.1"]

    assert event.decoded("DTSTART") == date(2029, 1, 15)


@pytest.mark.settings(expiry_alert_days=["60", "14", "1"], base_url="https://warranty.example.com/")
async def test_alarms_follow_the_alert_thresholds(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app)
    product = await create_product(app, owner)
    response = await client.get("/api/me/calendar", headers=auth_headers(app, owner))
    url = response.json()["url"]
    assert url.startswith("https://warranty.example.com/api/calendar/") and url.endswith(".ics")
    assert response.json()["webcalUrl"] == "webcal://" + url.removeprefix("https://")

    event = _events((await client.get(urlsplit(url).path)).content)[
        f"product-{product.id}@warranty.example.com"
    ]

    assert [alarm.decoded("TRIGGER") for alarm in event.walk("VALARM")] == [
        timedelta(days=-60),
        timedelta(days=-14),
        timedelta(days=-1),
    ]


async def test_a_feed_never_shows_another_users_products(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner, other = await create_user(app), await create_user(app)
    mine = await create_product(app, owner, name="Mine")
    await create_product(app, other, name="Theirs")
    owner_path = await _feed_path(client, auth_headers(app, owner))
    other_path = await _feed_path(client, auth_headers(app, other))
    assert owner_path != other_path

    events = _events((await client.get(owner_path)).content)

    assert list(events) == [f"product-{mine.id}@127.0.0.1"]
    assert [str(e["SUMMARY"]) for e in _events((await client.get(other_path)).content).values()] == [
        "Warranty ends: Theirs"
    ]


async def test_an_owner_without_products_gets_an_empty_calendar(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    response = await client.get(await _feed_path(client, auth_headers(app, owner)))
    assert response.status_code == 200
    assert Calendar.from_ical(response.content).walk("VEVENT") == []


async def test_rotation_replaces_the_url_and_the_old_one_answers_404(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    await create_product(app, owner)
    headers = auth_headers(app, owner)
    old = await _feed_path(client, headers)

    response = await client.post("/api/me/calendar/rotate", headers=headers)

    assert response.status_code == 200, response.text
    new = urlsplit(response.json()["url"]).path
    assert new != old
    assert_error(await client.get(old), 404, "NOT_FOUND")
    assert (await client.get(new)).status_code == 200
    assert await _feed_path(client, headers) == new


@pytest.mark.parametrize(
    "token",
    ["A" * 43, "short", "A" * 64, "A" * 65, "A" * 4000, "%01" * 10, "..%2F..%2Fetc"],
)
async def test_an_unknown_or_malformed_token_is_a_404(
    app: FastAPI, client: httpx.AsyncClient, token: str
) -> None:
    owner = await create_user(app)
    await _feed_path(client, auth_headers(app, owner))
    assert_error(await client.get(f"/api/calendar/{token}.ics"), 404, "NOT_FOUND")


async def test_a_nul_in_the_token_is_refused_like_any_nul_in_a_path(client: httpx.AsyncClient) -> None:
    assert_error(await client.get(f"/api/calendar/{'%00' * 10}.ics"), 400, "VALIDATION_FAILED")


async def test_the_feed_url_needs_a_signed_in_user(app: FastAPI, client: httpx.AsyncClient) -> None:
    assert_error(await client.get("/api/me/calendar"), 401, "AUTH_REQUIRED")
    assert_error(await client.post("/api/me/calendar/rotate"), 401, "AUTH_REQUIRED")


async def test_a_deleted_account_takes_its_feed_along(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)
    path = await _feed_path(client, headers)
    assert (await client.delete("/api/me", headers=headers)).status_code == 204
    assert_error(await client.get(path), 404, "NOT_FOUND")


@pytest.mark.settings(calendar_max_events=4)
async def test_a_big_owner_gets_the_nearest_warranties_in_a_fixed_number_of_queries(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    path = await _feed_path(client, auth_headers(app, owner))
    with frozen_time(NOW):  # today 2026-03-10
        for months in (1, 2, 30, 40, 50):  # bought 2024-01-01: ends 2024-02-01 ... 2028-03-01
            await create_product(app, owner, purchase_date=date(2024, 1, 1), warranty_period_months=months)
        with count_queries(app) as few:
            await client.get(path)
        for _ in range(20):
            await create_product(app, owner, purchase_date=date(2020, 1, 1), warranty_period_months=1)
        with count_queries(app) as many:
            response = await client.get(path)

    starts = sorted(event.decoded("DTSTART") for event in _events(response.content).values())
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
    path = await _feed_path(client, headers)
    products = f"/api/products/{voided.id}/warranty"
    assert (
        await client.post(f"{products}/void", json={"reason": "Opened."}, headers=headers)
    ).status_code == 200

    while_void = _events((await client.get(path)).content)
    assert (await client.post(f"{products}/unvoid", headers=headers)).status_code == 200
    unvoided = _events((await client.get(path)).content)

    assert list(while_void) == [f"product-{kept.id}@127.0.0.1"]
    assert sorted(unvoided) == sorted(f"product-{product.id}@127.0.0.1" for product in (voided, kept))


async def test_a_warranty_extension_moves_the_event(app: FastAPI, client: httpx.AsyncClient) -> None:
    customer = await create_user(app)
    supplier = await create_supplier(app)
    product = await create_product(app, customer, purchase_date=date(2024, 12, 1), warranty_period_months=24)
    claim = await create_claim(app, product, supplier=supplier, status="in_progress")
    path = await _feed_path(client, auth_headers(app, customer))
    body = {"status": "resolved", "outcome": "repaired", "newWarrantyMonths": 60}
    resolved = await client.post(
        f"/api/claims/{claim.id}/status", json=body, headers=auth_headers(app, supplier)
    )
    assert resolved.status_code == 200, resolved.text

    event = _events((await client.get(path)).content)[f"product-{product.id}@127.0.0.1"]

    assert event.decoded("DTSTART") == date.fromisoformat(resolved.json()["warrantyExtension"]["endsOn"])
    assert event.decoded("DTSTART") > date(2030, 1, 1)  # the extension's end, not the own 2026-12-01


async def test_control_characters_in_product_texts_never_reach_the_feed(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """RFC 5545 allows no control character in a text value (a strict calendar app drops the whole feed):
    each run of them in what a user wrote is one space; the lines end in CRLF and nothing else."""
    owner = await create_user(app)
    product = await create_product(
        app, owner, name="A\x0bB\x0cC", brand="Br\x1b\x7fand\u2028X", category="Kit\x85chen\u2029\x01\tY"
    )
    path = await _feed_path(client, auth_headers(app, owner))

    response = await client.get(path)

    assert response.status_code == 200, response.text
    text = response.content.decode()
    lines = text.split("\r\n")
    assert lines[-1] == ""  # the feed ends with CRLF
    unsafe = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
    assert [line for line in lines if unsafe.search(line)] == []
    event = _events(response.content)[f"product-{product.id}@127.0.0.1"]
    assert str(event["SUMMARY"]) == "Warranty ends: A B C"
    assert str(event["DESCRIPTION"]).startswith("Br and X A B C (Kit chen Y), bought 2026-01-15.")
    assert [str(alarm["DESCRIPTION"]) for alarm in event.walk("VALARM")] == [
        "The warranty of A B C ends in 30 days",
        "The warranty of A B C ends in 7 days",
    ]
