"""Routing (contract 17.6): a new claim on a brand an organisation handles goes to it in the creating
transaction, any case, with no agent; claims of other brands are as they always were. Admins and the
managers of a claim's organisation hand it on (PUT /api/claims/{id}/organization), unassigning its agent."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.claims.routed import open_claim, routed_claim
from tests.factories.organizations import create_organization
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_user
from tests.factories.webhooks import deliveries, register
from tests.helpers import assert_error, count_queries


async def _get(client: httpx.AsyncClient, app: FastAPI, path: str, user: Any) -> httpx.Response:
    return await client.get(path, headers=auth_headers(app, user))


async def _timeline(client: httpx.AsyncClient, app: FastAPI, claim_id: int, user: Any) -> list[Any]:
    response = await _get(client, app, f"/api/claims/{claim_id}/timeline", user)
    assert response.status_code == 200, response.text
    return [(entry["type"], entry["data"]) for entry in response.json()]


@pytest.mark.parametrize("brand", ["ACME", " acme", "Acme"])
async def test_a_claim_goes_to_the_organization_of_its_brand_in_any_case(
    app: FastAPI, client: httpx.AsyncClient, brand: str
) -> None:
    organization = await create_organization(app, "Acme Service", [" aCme "])
    customer = await create_user(app)
    product = await create_product(app, customer, brand=brand.strip())

    created = await open_claim(client, app, customer, product)

    routed = {"id": organization.id, "name": "Acme Service"}
    assert created["organization"] == routed and created["status"] == "open"
    detail = (await _get(client, app, f"/api/claims/{created['id']}", customer)).json()
    assert detail["organization"] == routed
    assert detail["supplierId"] is None and detail["status"] == "open"
    listed = (await _get(client, app, "/api/claims", customer)).json()
    assert [item["organization"] for item in listed] == [routed]
    timeline = await _timeline(client, app, created["id"], customer)
    assert timeline == [("claim.created", {"status": "open", "organizationId": organization.id})]


async def test_a_claim_on_a_brand_nobody_handles_is_not_routed(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    await create_organization(app, "Acme Service", ["Acme"])
    customer = await create_user(app)
    product = await create_product(app, customer, brand="Acme Pro")  # a brand of its own, not Acme

    created = await open_claim(client, app, customer, product)

    assert created["organization"] is None
    detail = (await _get(client, app, f"/api/claims/{created['id']}", customer)).json()
    assert detail["organization"] is None and detail["supplierId"] is None
    assert await _timeline(client, app, created["id"], customer) == [("claim.created", {"status": "open"})]


async def test_routing_costs_one_read_by_the_brand(app: FastAPI, client: httpx.AsyncClient) -> None:
    await create_organization(app, "Acme Service", ["Acme"])
    customer = await create_user(app)
    counts = []
    for brand in ("Acme", "Gaggia"):
        product = await create_product(app, customer, brand=brand)
        with count_queries(app) as statements:
            await open_claim(client, app, customer, product)
        counts.append(len(statements))
        assert len([s for s in statements if "organization_brands" in s]) == 1
    assert counts[0] == counts[1] + 1  # the routed claim's deadlines start: one insert


@pytest.mark.settings(webhook_allow_private=True)
async def test_claim_webhooks_name_the_organization(app: FastAPI, client: httpx.AsyncClient) -> None:
    await register(app, client, "http://127.0.0.1:9/hook", events=["claim.created"])
    organization = await create_organization(app, "Acme Service", ["Acme"])
    customer = await create_user(app)
    routed = await open_claim(client, app, customer, await create_product(app, customer, brand="Acme"))
    unrouted = await open_claim(client, app, customer, await create_product(app, customer, brand="Gaggia"))

    bodies = {
        body["data"]["claim"]["id"]: body["data"]["claim"]
        for body in (json.loads(delivery.body) for delivery in await deliveries(app))
    }
    assert bodies[routed["id"]]["organizationId"] == organization.id
    assert bodies[unrouted["id"]]["organizationId"] is None


async def _hand_on(
    client: httpx.AsyncClient, app: FastAPI, claim_id: int, user: Any, organization_id: Any
) -> httpx.Response:
    return await client.put(
        f"/api/claims/{claim_id}/organization",
        json={"organizationId": organization_id},
        headers=auth_headers(app, user),
    )


@pytest.mark.settings(webhook_allow_private=True)
async def test_an_admin_hands_a_claim_on_and_its_agent_is_unassigned(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    await register(app, client, "http://127.0.0.1:9/hook", events=["claim.supplier_assigned"])
    cast = await routed_claim(app, client)
    manager = auth_headers(app, cast.manager)
    taken = await client.put(f"{cast.path}/supplier", json={"supplierId": cast.agent.id}, headers=manager)
    assert taken.status_code == 200, taken.text

    moved = await _hand_on(client, app, cast.claim_id, cast.admin, cast.rival.id)

    assert moved.status_code == 200, moved.text
    assert moved.json()["organization"] == {"id": cast.rival.id, "name": "Rival Repairs"}
    assert moved.json()["supplierId"] is None and moved.json()["status"] == "open"
    assert (await _get(client, app, cast.path, cast.agent)).status_code == 404
    assert (await _get(client, app, cast.path, cast.rival_agent)).status_code == 200
    timeline = await _timeline(client, app, cast.claim_id, cast.customer)
    assert timeline[-2:] == [
        ("supplier.unassigned", {"supplierId": cast.agent.id}),
        (
            "organization.changed",
            {"organizationId": cast.rival.id, "previousOrganizationId": cast.organization.id},
        ),
    ]
    unassigned = json.loads((await deliveries(app))[-1].body)["data"]
    assert unassigned["claim"]["supplierId"] is None and unassigned["previousSupplierId"] == cast.agent.id
    assert unassigned["actorId"] == cast.admin.id


async def test_a_manager_hands_their_organizations_claim_on(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client)

    moved = await _hand_on(client, app, cast.claim_id, cast.manager, cast.rival.id)

    assert moved.status_code == 200, moved.text
    assert moved.json()["organization"]["id"] == cast.rival.id
    # Theirs no more: the manager, and every member of the organisation, lose sight of it.
    assert (await _get(client, app, cast.path, cast.manager)).status_code == 404
    assert (await _get(client, app, cast.path, cast.other_agent)).status_code == 404
    again = await _hand_on(client, app, cast.claim_id, cast.manager, cast.organization.id)
    assert again.status_code == 404
    timeline = await _timeline(client, app, cast.claim_id, cast.rival_manager)
    assert timeline[-1] == (
        "organization.changed",
        {"organizationId": cast.rival.id, "previousOrganizationId": cast.organization.id},
    )


async def test_who_may_not_hand_a_claim_on(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client)
    for user in (cast.agent, cast.customer):
        assert_error(await _hand_on(client, app, cast.claim_id, user, cast.rival.id), 403, "FORBIDDEN")
    for user in (cast.rival_manager, cast.rival_agent, cast.outsider):
        assert_error(await _hand_on(client, app, cast.claim_id, user, cast.rival.id), 404, "NOT_FOUND")
    detail = (await _get(client, app, cast.path, cast.customer)).json()
    assert detail["organization"]["id"] == cast.organization.id  # nothing moved


@pytest.mark.parametrize(
    "body", [{"organizationId": 999_999}, {"organizationId": "x"}, {}, {"organizationId": 0}]
)
async def test_an_unknown_organization_is_refused(
    app: FastAPI, client: httpx.AsyncClient, body: dict[str, Any]
) -> None:
    cast = await routed_claim(app, client)
    for user in (cast.admin, cast.manager):
        response = await client.put(f"{cast.path}/organization", json=body, headers=auth_headers(app, user))
        error = assert_error(response, 400, "VALIDATION_FAILED")
        assert "organizationId" in error["details"]["fields"]


async def test_an_admin_takes_a_claim_out_of_every_organization(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)

    moved = await _hand_on(client, app, cast.claim_id, cast.admin, None)

    assert moved.status_code == 200 and moved.json()["organization"] is None
    assert (await _get(client, app, cast.path, cast.agent)).status_code == 404
    timeline = await _timeline(client, app, cast.claim_id, cast.admin)
    assert timeline[-1] == (
        "organization.changed",
        {"organizationId": None, "previousOrganizationId": cast.organization.id},
    )


async def test_handing_a_claim_to_its_own_organization_changes_nothing(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)
    manager = auth_headers(app, cast.manager)
    await client.put(f"{cast.path}/supplier", json={"supplierId": cast.agent.id}, headers=manager)

    same = await _hand_on(client, app, cast.claim_id, cast.manager, cast.organization.id)

    assert same.status_code == 200 and same.json()["supplierId"] == cast.agent.id
    timeline = await _timeline(client, app, cast.claim_id, cast.admin)
    assert [kind for kind, _ in timeline] == ["claim.created", "supplier.assigned"]


async def test_a_claim_handed_on_shows_in_the_new_queue(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client)
    await _hand_on(client, app, cast.claim_id, cast.admin, cast.rival.id)

    theirs = await _get(client, app, f"/api/organizations/{cast.rival.id}/claims", cast.rival_agent)
    ours = await _get(client, app, f"/api/organizations/{cast.organization.id}/claims", cast.agent)

    assert [item["id"] for item in theirs.json()["data"]] == [cast.claim_id]
    assert ours.json()["data"] == []
