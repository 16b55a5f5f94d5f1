"""An organisation's deadline settings (contract 17.8): admins and its managers set the minutes and the
business hours, hostile values are refused naming the field, and a change re-computes the open claims'
deadlines in a number of statements that does not grow with the claims."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from tests.claims.routed import open_claim, routed_claim
from tests.factories.products import create_product
from tests.factories.users import auth_headers
from tests.helpers import assert_error, count_queries

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)  # a Monday
pytestmark = pytest.mark.settings(access_token_ttl=20 * 365 * 86400)  # tokens issued at T0 stay valid
HOURS = {"timezone": "America/New_York", "days": [1, 2, 3, 4, 5], "start": "09:00", "end": "17:00"}


async def test_defaults_and_what_managers_and_admins_set(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client)
    admin_path = f"/api/admin/organizations/{cast.organization.id}"
    shown = (await client.get(admin_path, headers=auth_headers(app, cast.admin))).json()
    assert (shown["firstResponseMinutes"], shown["resolutionMinutes"], shown["businessHours"]) == (
        1440,
        7200,
        None,
    )
    path = f"/api/organizations/{cast.organization.id}"
    body = {"firstResponseMinutes": 240, "businessHours": {**HOURS, "days": [5, 1, 2, 3, 4]}}
    response = await client.patch(path, json=body, headers=auth_headers(app, cast.manager))
    assert response.status_code == 200, response.text
    changed = response.json()
    assert (changed["firstResponseMinutes"], changed["resolutionMinutes"]) == (240, 7200)
    assert changed["businessHours"] == HOURS  # days in order
    mine = (await client.get("/api/organizations/mine", headers=auth_headers(app, cast.agent))).json()
    assert mine["businessHours"] == HOURS

    response = await client.patch(
        admin_path, json={"businessHours": None}, headers=auth_headers(app, cast.admin)
    )
    assert response.status_code == 200, response.text
    assert (response.json()["businessHours"], response.json()["firstResponseMinutes"]) == (None, 240)


async def test_only_its_managers_and_admins_set_them(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client)
    path = f"/api/organizations/{cast.organization.id}"
    body = {"resolutionMinutes": 60}
    assert_error(await client.patch(path, json=body, headers=auth_headers(app, cast.agent)), 403, "FORBIDDEN")
    for stranger in (cast.rival_manager, cast.customer, cast.outsider):
        response = await client.patch(path, json=body, headers=auth_headers(app, stranger))
        assert_error(response, 404, "NOT_FOUND")
    response = await client.patch(path, json=body, headers=auth_headers(app, cast.admin))
    assert response.status_code == 200, response.text
    # Managers set deadlines only: the name, brands and email are the admins'.
    response = await client.patch(path, json={"name": "Mine"}, headers=auth_headers(app, cast.manager))
    assert_error(response, 400, "VALIDATION_FAILED")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"firstResponseMinutes": 0}, "firstResponseMinutes"),
        ({"firstResponseMinutes": 525_601}, "firstResponseMinutes"),
        ({"resolutionMinutes": "many"}, "resolutionMinutes"),
        ({"resolutionMinutes": None}, "resolutionMinutes"),
        ({"resolutionMinutes": 10**30}, "resolutionMinutes"),
        ({"businessHours": {**HOURS, "timezone": "Mars/Olympus_Mons"}}, "businessHours.timezone"),
        ({"businessHours": {**HOURS, "timezone": "../../../etc/passwd"}}, "businessHours.timezone"),
        ({"businessHours": {**HOURS, "timezone": "/usr/share/zoneinfo/UTC"}}, "businessHours.timezone"),
        ({"businessHours": {**HOURS, "timezone": "x" * 65}}, "businessHours.timezone"),
        ({"businessHours": {**HOURS, "days": []}}, "businessHours.days"),
        ({"businessHours": {**HOURS, "days": [1, 1]}}, "businessHours.days"),
        ({"businessHours": {**HOURS, "days": [0]}}, "businessHours.days.0"),
        ({"businessHours": {**HOURS, "days": [8]}}, "businessHours.days.0"),
        ({"businessHours": {**HOURS, "start": "9:00"}}, "businessHours.start"),
        ({"businessHours": {**HOURS, "start": "24:00"}}, "businessHours.start"),
        ({"businessHours": {**HOURS, "end": "17:60"}}, "businessHours.end"),
        ({"businessHours": {**HOURS, "start": "17:00", "end": "09:00"}}, "businessHours"),
        ({"businessHours": {**HOURS, "start": "09:00", "end": "09:00"}}, "businessHours"),
        ({"businessHours": {**HOURS, "lunch": "12:00"}}, "businessHours.lunch"),
        ({"businessHours": "09:00-17:00"}, "businessHours"),
    ],
)
async def test_hostile_settings_are_refused_naming_the_field(
    app: FastAPI, client: httpx.AsyncClient, body: dict[str, Any], field: str
) -> None:
    cast = await routed_claim(app, client)
    for path, user in (
        (f"/api/organizations/{cast.organization.id}", cast.manager),
        (f"/api/admin/organizations/{cast.organization.id}", cast.admin),
    ):
        response = await client.patch(path, json=body, headers=auth_headers(app, user))
        error = assert_error(response, 400, "VALIDATION_FAILED")
        assert field in error["details"]["fields"], error
    shown = (await client.get("/api/organizations/mine", headers=auth_headers(app, cast.manager))).json()
    assert (shown["firstResponseMinutes"], shown["businessHours"]) == (1440, None)  # nothing written


async def test_a_change_recomputes_open_deadlines_in_fixed_statements(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    with frozen_time(T0):
        cast = await routed_claim(app, client)
    path = f"/api/organizations/{cast.organization.id}"
    headers = auth_headers(app, cast.manager)
    with count_queries(app) as one:
        response = await client.patch(path, json={"firstResponseMinutes": 60}, headers=headers)
    assert response.status_code == 200, response.text
    detail = (await client.get(cast.path, headers=auth_headers(app, cast.customer))).json()
    assert detail["sla"]["firstResponseDueAt"] == (T0 + timedelta(minutes=60)).isoformat()
    assert detail["sla"]["resolutionDueAt"] == (T0 + timedelta(minutes=7200)).isoformat()

    with frozen_time(T0):
        for _ in range(6):
            product = await create_product(app, cast.customer, brand="Acme")
            await open_claim(client, app, cast.customer, product)
    with count_queries(app) as seven:
        response = await client.patch(path, json={"firstResponseMinutes": 90}, headers=headers)
    assert response.status_code == 200, response.text
    assert len(seven) == len(one)
    queue = await client.get(f"{path}/claims", headers=headers)
    dues = {item["sla"]["firstResponseDueAt"] for item in queue.json()["data"]}
    assert dues == {(T0 + timedelta(minutes=90)).isoformat()}
