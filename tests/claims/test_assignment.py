"""Who works a routed claim (contract 17.7): admins assign anyone of its organisation, managers any of
their members, agents take unassigned claims for themselves; and the first supplier-side message or status
change by a member of the organisation on a claim with no agent makes them its agent, once."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from app.models import Claim, ClaimEvent
from tests.claims.routed import Routed, open_claim, routed_claim
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.factories.webhooks import deliveries, register
from tests.helpers import assert_error, wait_for


async def _assign(client: httpx.AsyncClient, app: FastAPI, cast: Routed, user: Any, supplier_id: Any) -> Any:
    return await client.put(
        f"{cast.path}/supplier", json={"supplierId": supplier_id}, headers=auth_headers(app, user)
    )


async def _agent_of(app: FastAPI, claim_id: int) -> int | None:
    async with app.state.sessionmaker() as session:
        return await session.scalar(select(Claim.supplier_id).where(Claim.id == claim_id))


async def _entries(app: FastAPI, claim_id: int, kind: str) -> list[ClaimEvent]:
    async with app.state.sessionmaker() as session:
        found = await session.scalars(
            select(ClaimEvent).where(ClaimEvent.claim_id == claim_id, ClaimEvent.kind == kind)
        )
        return list(found)


async def test_a_manager_assigns_any_member_of_the_organization(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)
    for supplier_id in (cast.agent.id, cast.other_agent.id, cast.manager.id, None):
        response = await _assign(client, app, cast, cast.manager, supplier_id)
        assert response.status_code == 200, response.text
        assert response.json()["supplierId"] == supplier_id
    kinds = [entry.data for entry in await _entries(app, cast.claim_id, "supplier.assigned")]
    assert [data["supplierId"] for data in kinds] == [cast.agent.id, cast.other_agent.id, cast.manager.id]


async def test_only_members_of_the_claims_organization_can_be_its_agent(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)
    lone_supplier = await create_supplier(app)  # ROLE_SUPPLIER, in no organisation
    plain = await create_user(app)
    for actor in (cast.manager, cast.admin):
        for supplier_id in (cast.rival_agent.id, cast.rival_manager.id, lone_supplier.id, plain.id, 999_999):
            response = await _assign(client, app, cast, actor, supplier_id)
            error = assert_error(response, 400, "VALIDATION_FAILED")
            assert "supplierId" in error["details"]["fields"]
    assert (await _assign(client, app, cast, cast.admin, cast.agent.id)).json()["supplierId"] == cast.agent.id


async def test_an_agent_takes_an_unassigned_claim_for_themselves_only(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)
    assert_error(await _assign(client, app, cast, cast.agent, cast.other_agent.id), 403, "FORBIDDEN")
    assert_error(await _assign(client, app, cast, cast.agent, None), 403, "FORBIDDEN")

    taken = await _assign(client, app, cast, cast.agent, cast.agent.id)
    assert taken.status_code == 200 and taken.json()["supplierId"] == cast.agent.id
    again = await _assign(client, app, cast, cast.agent, cast.agent.id)
    assert again.status_code == 200 and again.json()["supplierId"] == cast.agent.id

    assert_error(
        await _assign(client, app, cast, cast.other_agent, cast.other_agent.id), 409, "CLAIM_ALREADY_ASSIGNED"
    )
    assert await _agent_of(app, cast.claim_id) == cast.agent.id
    assert len(await _entries(app, cast.claim_id, "supplier.assigned")) == 1


async def test_others_may_not_assign_a_routed_claims_agent(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client)
    assert_error(await _assign(client, app, cast, cast.customer, cast.agent.id), 403, "FORBIDDEN")
    for user in (cast.rival_manager, cast.rival_agent, cast.outsider):
        assert_error(await _assign(client, app, cast, user, user.id), 404, "NOT_FOUND")
    assert await _agent_of(app, cast.claim_id) is None


async def test_an_unrouted_claim_is_assigned_by_admins_as_before(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)
    product = await create_product(app, cast.customer, brand="Gaggia")
    unrouted = await open_claim(client, app, cast.customer, product)
    path = f"/api/claims/{unrouted['id']}/supplier"

    refused = await client.put(
        path, json={"supplierId": cast.agent.id}, headers=auth_headers(app, cast.manager)
    )
    assert refused.status_code == 404  # not their organisation's claim: they do not see it
    # Any ROLE_SUPPLIER user, a member of an organisation too, as always.
    done = await client.put(path, json={"supplierId": cast.agent.id}, headers=auth_headers(app, cast.admin))
    assert done.status_code == 200 and done.json()["supplierId"] == cast.agent.id


async def _post(
    client: httpx.AsyncClient, app: FastAPI, cast: Routed, user: Any, text: str
) -> httpx.Response:
    return await client.post(f"{cast.path}/messages", json={"message": text}, headers=auth_headers(app, user))


@pytest.mark.settings(webhook_allow_private=True)
async def test_the_first_agent_to_answer_becomes_the_agent_once(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    await register(app, client, "http://127.0.0.1:9/hook", events=["claim.supplier_assigned"])
    cast = await routed_claim(app, client)
    assert (await _post(client, app, cast, cast.customer, "Any news?")).status_code == 201
    assert await _agent_of(app, cast.claim_id) is None  # the customer's side takes nothing

    first = await _post(client, app, cast, cast.agent, "We are on it.")
    second = await _post(client, app, cast, cast.other_agent, "A colleague here.")

    assert first.status_code == second.status_code == 201
    assert await _agent_of(app, cast.claim_id) == cast.agent.id
    [entry] = await _entries(app, cast.claim_id, "supplier.assigned")
    assert entry.actor_id == cast.agent.id
    assert entry.data == {"supplierId": cast.agent.id, "previousSupplierId": None}
    [webhook] = [json.loads(delivery.body)["data"] for delivery in await deliveries(app)]
    assert webhook["claim"]["supplierId"] == cast.agent.id and webhook["actorId"] == cast.agent.id
    assert webhook["claim"]["organizationId"] == cast.organization.id
    timeline = await client.get(f"{cast.path}/timeline", headers=auth_headers(app, cast.customer))
    kinds = [entry["type"] for entry in timeline.json()]
    assert kinds == [
        "claim.created",
        "message.posted",
        "supplier.assigned",
        "message.posted",
        "message.posted",
    ]


async def test_a_status_change_by_an_agent_makes_them_the_agent(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)

    moved = await client.post(
        f"{cast.path}/status", json={"status": "in_progress"}, headers=auth_headers(app, cast.other_agent)
    )

    assert moved.status_code == 200, moved.text
    assert moved.json()["status"] == "in_progress" and moved.json()["supplierId"] == cast.other_agent.id
    assert len(await _entries(app, cast.claim_id, "supplier.assigned")) == 1


async def test_a_refused_status_change_takes_nothing(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client)
    closing = await client.post(f"{cast.path}/close", headers=auth_headers(app, cast.agent))
    resolving = await client.post(
        f"{cast.path}/status", json={"status": "resolved"}, headers=auth_headers(app, cast.agent)
    )
    assert_error(closing, 403, "FORBIDDEN")
    assert_error(resolving, 409, "INVALID_STATUS_TRANSITION")
    assert await _agent_of(app, cast.claim_id) is None
    assert await _entries(app, cast.claim_id, "supplier.assigned") == []


async def test_an_admin_answering_takes_nothing(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client)
    admin = await create_admin(app)
    assert (await _post(client, app, cast, admin, "Support here.")).status_code == 201
    assert await _agent_of(app, cast.claim_id) is None


@pytest.mark.postgres_only
async def test_two_agents_answering_at_once_only_one_becomes_the_agent(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """Both wait for the claim's row (held by another transaction), then go at once: the first to lock it
    takes it, the other finds it taken and only posts."""
    cast = await routed_claim(app, client)
    holder = create_async_engine(app.state.settings.database_url, poolclass=NullPool)
    async with holder.connect() as holding:
        await holding.execute(text("SELECT id FROM claims WHERE id = :id FOR UPDATE"), {"id": cast.claim_id})
        answers = [
            asyncio.create_task(_post(client, app, cast, agent, f"Mine, says {agent.name}"))
            for agent in (cast.agent, cast.other_agent)
        ]

        async def both_wait() -> bool:
            async with holder.connect() as probe:
                waiting = await probe.scalar(
                    text(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                        " AND wait_event_type = 'Lock' AND query LIKE 'SELECT claims.%FOR UPDATE'"
                    )
                )
            return waiting == 2

        await wait_for(both_wait)
        await holding.commit()
    await holder.dispose()

    assert [answer.status_code for answer in await asyncio.gather(*answers)] == [201, 201]
    agent = await _agent_of(app, cast.claim_id)
    assert agent in (cast.agent.id, cast.other_agent.id)
    [entry] = await _entries(app, cast.claim_id, "supplier.assigned")
    assert entry.actor_id == agent
    assert len(await _entries(app, cast.claim_id, "message.posted")) == 2
