"""A routed claim's deadlines over HTTP (contract 17.8): they start with the claim, the first supplier-side
message meets the first response, the resolution clock pauses while the claim waits for its customer and
resumes at the customer's next message, resolving stops it, a reopen resumes it, handing on starts afresh.
The detail's and the queue's `sla` show it; the stored business minutes are what the report reads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.core.clock import frozen_time
from app.models import ClaimDeadline, User
from tests.claims.routed import Routed, open_claim, routed_claim
from tests.factories.products import create_product
from tests.factories.users import auth_headers
from tests.helpers import count_queries

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)  # a Monday
# Tokens issued at T0 must still pass the JWT library's own expiry check, which reads the real clock.
pytestmark = pytest.mark.settings(access_token_ttl=20 * 365 * 86400)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


async def _say(client: httpx.AsyncClient, app: FastAPI, cast: Routed, user: User, text: str) -> None:
    response = await client.post(
        f"{cast.path}/messages", json={"message": text}, headers=auth_headers(app, user)
    )
    assert response.status_code == 201, response.text


async def _move(client: httpx.AsyncClient, app: FastAPI, cast: Routed, user: User, status: str) -> None:
    response = await client.post(
        f"{cast.path}/status", json={"status": status}, headers=auth_headers(app, user)
    )
    assert response.status_code == 200, response.text


async def _sla(client: httpx.AsyncClient, app: FastAPI, cast: Routed) -> Any:
    response = await client.get(cast.path, headers=auth_headers(app, cast.customer))
    assert response.status_code == 200, response.text
    return response.json()["sla"]


async def _row(app: FastAPI, claim_id: int) -> ClaimDeadline:
    async with app.state.sessionmaker() as session:
        row = await session.scalar(select(ClaimDeadline).where(ClaimDeadline.claim_id == claim_id))
    assert row is not None
    return row


async def test_the_clocks_of_a_claim_from_opening_to_resolution(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    with frozen_time(T0):
        cast = await routed_claim(app, client)
    assert await _sla(client, app, cast) == {
        "firstResponseDueAt": iso(at(1440)),
        "firstRespondedAt": None,
        "resolutionDueAt": iso(at(7200)),
        "resolvedAt": None,
        "paused": False,
        "breached": [],
    }
    with frozen_time(at(10)):
        await _say(client, app, cast, cast.customer, "Any news?")  # the customer side meets nothing
    assert (await _sla(client, app, cast))["firstRespondedAt"] is None
    with frozen_time(at(30)):
        await _say(client, app, cast, cast.agent, "We are on it.")  # open: nothing to wait for yet
    sla = await _sla(client, app, cast)
    assert (sla["firstRespondedAt"], sla["paused"]) == (iso(at(30)), False)
    assert (await _row(app, cast.claim_id)).first_response_minutes == 30

    with frozen_time(at(60)):  # in progress, and the last message is the agent's: waits for the customer
        await _move(client, app, cast, cast.agent, "in_progress")
    sla = await _sla(client, app, cast)
    assert (sla["resolutionDueAt"], sla["paused"]) == (None, True)
    assert sla["firstRespondedAt"] == iso(at(30))  # met once

    with frozen_time(at(120)):  # the customer answers: 60 minutes ran, 7,140 are left from now
        await _say(client, app, cast, cast.customer, "Here is the photo.")
    sla = await _sla(client, app, cast)
    assert (sla["resolutionDueAt"], sla["paused"]) == (iso(at(120 + 7140)), False)

    with frozen_time(at(150)):
        await _move(client, app, cast, cast.agent, "resolved")
    sla = await _sla(client, app, cast)
    assert (sla["resolvedAt"], sla["resolutionDueAt"], sla["paused"]) == (iso(at(150)), iso(at(7260)), False)
    row = await _row(app, cast.claim_id)
    assert (row.resolved_at, row.resolution_minutes) == (at(150), 90)  # 60 + 30, the pause excluded

    with frozen_time(at(200)):  # the customer reopens: the clock resumes from its 90 minutes
        await _move(client, app, cast, cast.customer, "in_progress")
    sla = await _sla(client, app, cast)
    assert (sla["resolvedAt"], sla["resolutionDueAt"]) == (None, iso(at(200 + 7110)))
    assert (await _row(app, cast.claim_id)).resolution_minutes is None


async def test_a_status_change_is_a_first_response_and_closing_stops_the_clock(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    with frozen_time(T0):
        cast = await routed_claim(app, client)
    with frozen_time(at(45)):
        await _move(client, app, cast, cast.agent, "in_progress")  # no message: not waiting
    sla = await _sla(client, app, cast)
    assert (sla["firstRespondedAt"], sla["paused"]) == (iso(at(45)), False)
    with frozen_time(at(100)):
        await _move(client, app, cast, cast.agent, "resolved")
    with frozen_time(at(300)):
        response = await client.post(f"{cast.path}/close", headers=auth_headers(app, cast.customer))
        assert response.status_code == 200, response.text
    row = await _row(app, cast.claim_id)
    assert (row.resolved_at, row.resolution_minutes) == (at(100), 100)  # the resolution counted, once


async def test_business_hours_count_the_deadlines(app: FastAPI, client: httpx.AsyncClient) -> None:
    hours = {"timezone": "Europe/Berlin", "days": [1, 2, 3, 4, 5], "start": "09:00", "end": "17:00"}
    with frozen_time(T0):
        cast = await routed_claim(app, client)
    admin_headers = auth_headers(app, cast.admin)
    response = await client.patch(
        f"/api/admin/organizations/{cast.organization.id}",
        json={"firstResponseMinutes": 60, "businessHours": hours},
        headers=admin_headers,
    )
    assert response.status_code == 200, response.text
    # Opened Monday 10:00 Berlin (09:00 UTC): 60 business minutes later is 11:00 Berlin.
    sla = await _sla(client, app, cast)
    assert sla["firstResponseDueAt"] == "2026-11-02T10:00:00+00:00"
    # 7,200 business minutes are 15 days of 8 hours: three weeks on, Monday 10:00 Berlin.
    assert sla["resolutionDueAt"] == "2026-11-23T09:00:00+00:00"
    with frozen_time(datetime(2026, 11, 2, 17, 30, tzinfo=UTC)):  # 18:30 Berlin: 7 business hours in
        await _say(client, app, cast, cast.agent, "Tomorrow.")
    assert (await _row(app, cast.claim_id)).first_response_minutes == 7 * 60


async def test_handing_on_starts_the_clocks_afresh_and_none_removes_them(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    with frozen_time(T0):
        cast = await routed_claim(app, client)
    with frozen_time(at(30)):
        await _say(client, app, cast, cast.agent, "Looking.")
    with frozen_time(at(90)):
        response = await client.put(
            f"{cast.path}/organization",
            json={"organizationId": cast.rival.id},
            headers=auth_headers(app, cast.admin),
        )
        assert response.status_code == 200, response.text
    assert response.json()["sla"] == {
        "firstResponseDueAt": iso(at(90 + 1440)),
        "firstRespondedAt": None,
        "resolutionDueAt": iso(at(90 + 7200)),
        "resolvedAt": None,
        "paused": False,
        "breached": [],
    }
    response = await client.put(
        f"{cast.path}/organization", json={"organizationId": None}, headers=auth_headers(app, cast.admin)
    )
    assert response.json()["sla"] is None


async def test_the_queue_shows_deadlines_in_a_fixed_number_of_statements(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    with frozen_time(T0):
        cast = await routed_claim(app, client)
    path = f"/api/organizations/{cast.organization.id}/claims"
    headers = auth_headers(app, cast.manager)
    with count_queries(app) as one:
        response = await client.get(path, headers=headers)
    [item] = response.json()["data"]
    assert item["sla"]["firstResponseDueAt"] == iso(at(1440))
    for _ in range(4):
        await open_claim(client, app, cast.customer, await create_product(app, cast.customer, brand="Acme"))
    with count_queries(app) as five:
        response = await client.get(path, headers=headers)
    assert len(response.json()["data"]) == 5
    assert all(item["sla"] is not None for item in response.json()["data"])
    assert len(five) == len(one)


async def test_the_queue_sorted_by_due_time_soonest_open_deadline_first(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    with frozen_time(T0):
        cast = await routed_claim(app, client)  # A: first response due at T0 + 1,440
    ids = [cast.claim_id]
    for minute in (10, 20, 30):
        with frozen_time(at(minute)):
            product = await create_product(app, cast.customer, brand="Acme")
            ids.append((await open_claim(client, app, cast.customer, product))["id"])
    a, b, c, d = ids
    agent = auth_headers(app, cast.agent)
    with frozen_time(at(40)):  # B answered: its resolution is next, at 10 + 7,200
        response = await client.post(f"/api/claims/{b}/status", json={"status": "in_progress"}, headers=agent)
        assert response.status_code == 200, response.text
    with frozen_time(at(50)):  # D resolved: no open deadline, last
        for status in ("in_progress", "resolved"):
            response = await client.post(f"/api/claims/{d}/status", json={"status": status}, headers=agent)
            assert response.status_code == 200, response.text
    path = f"/api/organizations/{cast.organization.id}/claims?sort=due"
    headers = auth_headers(app, cast.manager)
    with count_queries(app) as statements:
        whole = await client.get(path, headers=headers)
    assert [item["id"] for item in whole.json()["data"]] == [a, c, b, d]
    with count_queries(app) as by_creation:
        await client.get(f"/api/organizations/{cast.organization.id}/claims", headers=headers)
    assert len(statements) == len(by_creation)

    seen, cursor = [], None
    while True:  # one at a time, by the keyset cursor
        query = f"{path}&limit=1" + (f"&cursor={cursor}" if cursor else "")
        page = (await client.get(query, headers=headers)).json()
        seen += [item["id"] for item in page["data"]]
        cursor = page["meta"]["next_cursor"]
        if cursor is None:
            break
    assert seen == [a, c, b, d]
