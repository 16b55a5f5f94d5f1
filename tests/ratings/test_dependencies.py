"""The report's `from` and `to` as a caller writes them: required, YYYY-MM-DD, a real period (else 400)."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.models.enums import OrganizationRole
from tests.factories.organizations import add_org_member, create_organization
from tests.factories.users import auth_headers, create_supplier
from tests.helpers import assert_error


@pytest.mark.parametrize(
    "query",
    [
        "",
        "?from=2026-11-01",
        "?to=2026-11-30",
        "?from=2026-11-1&to=2026-11-30",
        "?from=20261101&to=2026-11-30",
        "?from=2026-11-01T00:00:00&to=2026-11-30",
        "?from=\uff11\uff12\uff13\uff14-11-01&to=2026-11-30",  # digits, not ASCII ones
        "?from=2026-02-30&to=2026-03-01",
        "?from=2026-11-30&to=2026-11-01",
        "?from=2026-01-01&to=2027-01-02",
        "?from=0000-01-01&to=0000-01-01",
    ],
)
async def test_bad_days_are_400(app: FastAPI, client: httpx.AsyncClient, query: str) -> None:
    organization = await create_organization(app, "Acme Service", ["Acme"])
    manager = await create_supplier(app)
    await add_org_member(app, organization, manager, OrganizationRole.MANAGER)
    response = await client.get(
        f"/api/organizations/{organization.id}/report{query}", headers=auth_headers(app, manager)
    )
    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert set(body["details"]["fields"]) <= {"from", "to"}


async def test_a_year_and_a_day_in_a_leap_year(app: FastAPI, client: httpx.AsyncClient) -> None:
    organization = await create_organization(app, "Acme Service", ["Acme"])
    manager = await create_supplier(app)
    await add_org_member(app, organization, manager, OrganizationRole.MANAGER)
    response = await client.get(
        f"/api/organizations/{organization.id}/report?from=2028-01-01&to=2028-12-31",
        headers=auth_headers(app, manager),
    )
    assert response.status_code == 200, response.text
    assert (response.json()["from"], response.json()["to"]) == ("2028-01-01", "2028-12-31")
