"""The organisations' rules under concurrent requests: a brand or a user taken at the same moment by
another organisation is the caller's 409 (the tables' keys decide, never a 500), and two managers stepping
down at once leave one manager (the organisation's row lock)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.models import Organization, OrganizationBrand
from app.models.enums import OrganizationRole
from app.organizations.repository import OrganizationRepository
from tests.claims.routed import routed_claim
from tests.factories.organizations import add_org_member, create_organization
from tests.factories.users import auth_headers, create_admin, create_supplier
from tests.helpers import assert_error
from tests.organizations.steps import ADMIN_PATH, call, create, created_id


async def _count(app: FastAPI, model: Any) -> int:
    async with app.state.sessionmaker() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def test_two_organizations_created_at_once_with_one_brand_give_one_201_and_one_409(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    admin = await create_admin(app)

    responses = await asyncio.gather(
        create(app, client, admin, name="First", brands=["Saeco", "Gaggia"]),
        create(app, client, admin, name="Second", brands=[" GAGGIA", "Krups"]),
    )

    statuses = sorted(response.status_code for response in responses)
    assert statuses == [201, 409], [response.text for response in responses]
    [refused] = [response for response in responses if response.status_code == 409]
    assert_error(refused, 409, "BRAND_TAKEN")
    assert refused.json()["details"]["brands"] in (["Gaggia"], ["GAGGIA"])
    # The refused organisation left nothing behind: not its row, not its other brand.
    assert await _count(app, Organization) == 1 and await _count(app, OrganizationBrand) == 2


@pytest.fixture
def blind_first_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first read of who holds a brand sees nothing, as when another request takes the brand between
    that read and the insert: only the brands' key can refuse it then."""
    real = OrganizationRepository.holders
    calls = 0

    async def holders(self: OrganizationRepository, keys: Any, organization_id: Any) -> dict[str, int]:
        nonlocal calls
        calls += 1
        return {} if calls == 1 else await real(self, keys, organization_id)

    monkeypatch.setattr(OrganizationRepository, "holders", holders)


async def test_a_brand_refused_by_its_key_on_creation_is_409_naming_it(
    app: FastAPI, client: httpx.AsyncClient, blind_first_check: None
) -> None:
    admin = await create_admin(app)
    await create_organization(app, "First", ["Gaggia"])

    response = await create(app, client, admin, name="Second", brands=["Krups", "gaggia "])

    assert assert_error(response, 409, "BRAND_TAKEN")["details"] == {"brands": ["gaggia"]}
    assert await _count(app, Organization) == 1 and await _count(app, OrganizationBrand) == 1


async def test_a_brand_refused_by_its_key_on_change_is_409_and_changes_nothing(
    app: FastAPI, client: httpx.AsyncClient, blind_first_check: None
) -> None:
    admin = await create_admin(app)
    await create_organization(app, "First", ["Gaggia"])
    second = await create_organization(app, "Second", ["Krups", "Saeco"])

    response = await call(
        app,
        client,
        admin,
        "PATCH",
        f"{ADMIN_PATH}/{second.id}",
        {"name": "Renamed", "brands": ["SAECO", "Gaggia"]},
    )

    assert assert_error(response, 409, "BRAND_TAKEN")["details"] == {"brands": ["Gaggia"]}
    kept = (await call(app, client, admin, "GET", f"{ADMIN_PATH}/{second.id}")).json()
    assert (kept["name"], kept["brands"]) == ("Second", ["Krups", "Saeco"])


async def test_one_user_added_to_two_organizations_at_once_joins_one(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    admin = await create_admin(app)
    first = await created_id(app, client, admin, name="First")
    second = await created_id(app, client, admin, name="Second")
    sam = await create_supplier(app)
    headers = auth_headers(app, admin)
    join = {"userId": sam.id, "role": "agent"}

    responses = await asyncio.gather(
        client.post(f"{ADMIN_PATH}/{first}/members", json=join, headers=headers),
        client.post(f"{ADMIN_PATH}/{second}/members", json=join, headers=headers),
    )

    assert sorted(response.status_code for response in responses) == [201, 409], [r.text for r in responses]
    [refused] = [response for response in responses if response.status_code == 409]
    assert_error(refused, 409, "ALREADY_IN_ORGANIZATION")
    joined = (await call(app, client, sam, "GET", "/api/organizations/mine")).json()["id"]
    [accepted] = [response for response in responses if response.status_code == 201]
    assert accepted.request.url.path == f"{ADMIN_PATH}/{joined}/members"


async def test_two_managers_stepping_down_at_once_leave_one_manager(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    organization = await create_organization(app, "Gaggia Service")
    first, second = await create_supplier(app), await create_supplier(app)
    await add_org_member(app, organization, first, OrganizationRole.MANAGER)
    await add_org_member(app, organization, second, OrganizationRole.MANAGER)
    path = f"/api/organizations/{organization.id}/members"

    responses = await asyncio.gather(
        call(app, client, first, "PATCH", f"{path}/{first.id}", {"role": "agent"}),
        call(app, client, second, "DELETE", f"{path}/{second.id}"),
    )

    assert sorted(response.status_code for response in responses) in ([200, 409], [204, 409]), [
        response.text for response in responses
    ]
    roles = (
        await call(app, client, await create_admin(app), "GET", f"{ADMIN_PATH}/{organization.id}/members")
    ).json()
    assert [member["role"] for member in roles["data"]].count("manager") == 1


async def test_a_member_removed_over_http_loses_the_organizations_claims_at_once(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    routed = await routed_claim(app, client)
    agent = auth_headers(app, routed.agent)
    assert (await client.get(routed.path, headers=agent)).status_code == 200
    stream = app.state.hub.subscribe(routed.agent.id, [f"claims/{routed.claim_id}/messages"])

    removed = await client.delete(
        f"/api/organizations/{routed.organization.id}/members/{routed.agent.id}",
        headers=auth_headers(app, routed.manager),
    )
    assert removed.status_code == 204, removed.text

    assert (await client.get(routed.path, headers=agent)).status_code == 404
    async with asyncio.timeout(5):  # far less than the periodic sweep's interval
        while not stream.closed:  # noqa: ASYNC110 (the hub wakes the stream's own reader, not a test's)
            await asyncio.sleep(0.01)


async def test_a_renamed_organization_shows_its_new_name_in_cached_claim_lists(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    routed = await routed_claim(app, client)
    customer = auth_headers(app, routed.customer)
    [before] = (await client.get("/api/claims", headers=customer)).json()  # cached now
    renamed = await client.patch(
        f"/api/admin/organizations/{routed.organization.id}",
        json={"name": "Renamed Service GmbH"},
        headers=auth_headers(app, routed.admin),
    )
    assert renamed.status_code == 200, renamed.text

    [after] = (await client.get("/api/claims", headers=customer)).json()
    assert before["organization"]["name"] != "Renamed Service GmbH"
    assert after["organization"] == {"id": routed.organization.id, "name": "Renamed Service GmbH"}
