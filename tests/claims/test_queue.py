"""An organisation's queue (contract 17.7): the claims routed to it, oldest first, for its members and
admins, in the envelope with keyset cursors; filtered by status, assignment, agent, brand and text; a fixed
number of statements whatever the page and the organisation's size, down the queue's partial indexes."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text, update
from sqlalchemy.dialects import postgresql, sqlite

from app.claims.queue import QueueFilter, queue_rows
from app.models import Claim, Organization, User
from app.models.enums import OrganizationRole
from tests.claims.routed import staffed_organization
from tests.factories.claims import create_claim
from tests.factories.organizations import add_org_member
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error, count_queries


async def queued(
    app: FastAPI,
    organization: Organization,
    customer: User,
    *,
    agent: User | None = None,
    status: str = "open",
    description: str = "It stopped working.",
    name: str = "Washer",
    brand: str = "Acme",
) -> int:
    """A claim in the organisation's queue (written straight to the database)."""
    product = await create_product(app, customer, name=name, brand=brand)
    claim = await create_claim(app, product, supplier=agent, status=status, description=description)
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(
            update(Claim).where(Claim.id == claim.id).values(organization_id=organization.id)
        )
    return claim.id


async def _queue(
    client: httpx.AsyncClient, app: FastAPI, organization_id: int, user: User, query: str = ""
) -> httpx.Response:
    return await client.get(
        f"/api/organizations/{organization_id}/claims{query}", headers=auth_headers(app, user)
    )


def _ids(response: httpx.Response) -> list[int]:
    assert response.status_code == 200, response.text
    return [item["id"] for item in response.json()["data"]]


async def test_members_and_admins_see_the_queue_oldest_first(app: FastAPI, client: httpx.AsyncClient) -> None:
    organization, manager, (agent, _) = await staffed_organization(app, "Acme Service", ["Acme"])
    customer = await create_user(app, email="ann@example.com")
    first = await queued(app, organization, customer, agent=agent, description="First")
    second = await queued(app, organization, customer, description="Second")
    rival, _, _ = await staffed_organization(app, "Rival", ["Rival"], agents=0)
    await queued(app, rival, customer)

    for user in (manager, agent, await create_admin(app)):
        response = await _queue(client, app, organization.id, user)
        assert _ids(response) == [first, second]
        assert response.json()["meta"]["total"] == 2
    item = (await _queue(client, app, organization.id, agent)).json()["data"][0]
    assert item == {
        "id": first,
        "type": "claim",
        "productId": item["productId"],
        "productName": "Washer",
        "productBrand": "Acme",
        "customerId": customer.id,
        "customerEmail": "ann@example.com",
        "status": "open",
        "description": "First",
        "createdAt": item["createdAt"],
        "messageCount": 0,
        "organization": {"id": organization.id, "name": "Acme Service"},
        "supplierId": agent.id,
        "sla": None,  # written straight to the database: no deadlines were started
    }


async def test_nobody_else_sees_the_queue(app: FastAPI, client: httpx.AsyncClient) -> None:
    organization, _, _ = await staffed_organization(app, "Acme Service", ["Acme"])
    _, rival_manager, (rival_agent,) = await staffed_organization(app, "Rival", ["Rival"], agents=1)
    customer = await create_user(app)
    await queued(app, organization, customer)
    lone_supplier = await create_supplier(app)
    for user in (rival_manager, rival_agent, customer, lone_supplier):
        assert_error(await _queue(client, app, organization.id, user), 404, "NOT_FOUND")
    admin = await create_admin(app)
    for missing in ("999999", "0", str(2**31), str(2**63)):
        assert_error(await _queue(client, app, int(missing), admin), 404, "NOT_FOUND")
    assert_error(
        await client.get("/api/organizations/x/claims", headers=auth_headers(app, admin)),
        400,
        "VALIDATION_FAILED",
    )
    assert (await client.get(f"/api/organizations/{organization.id}/claims")).status_code == 401


async def test_the_queue_pages_by_cursor(app: FastAPI, client: httpx.AsyncClient) -> None:
    organization, _, (agent, _) = await staffed_organization(app, "Acme Service", ["Acme"])
    customer = await create_user(app)
    claims = [await queued(app, organization, customer) for _ in range(5)]

    seen: list[int] = []
    query = "?limit=2"
    while True:
        page = await _queue(client, app, organization.id, agent, query)
        seen += _ids(page)
        assert page.json()["meta"]["total"] == 5
        cursor = page.json()["meta"]["next_cursor"]
        if cursor is None:
            break
        query = f"?limit=2&cursor={cursor}"
    assert seen == claims
    by_number = await _queue(client, app, organization.id, agent, "?page=2&limit=2")
    assert _ids(by_number) == claims[2:4]
    first = (await _queue(client, app, organization.id, agent, "?limit=2")).json()["meta"]["next_cursor"]
    other_list = await _queue(client, app, organization.id, agent, f"?limit=2&status=open&cursor={first}")
    assert_error(other_list, 400, "VALIDATION_FAILED")


async def test_the_queue_filters(app: FastAPI, client: httpx.AsyncClient) -> None:
    organization, manager, (agent, other) = await staffed_organization(app, "Acme Service", ["Acme", "Zeta"])
    customer = await create_user(app)
    mine = await queued(
        app, organization, customer, agent=agent, status="in_progress", description="Drum 50% off"
    )
    others = await queued(app, organization, customer, agent=other, name="Dryer_X", brand="Zeta")
    nobodys = await queued(app, organization, customer, description="Loud noise")

    async def ids(user: User, query: str) -> list[int]:
        return _ids(await _queue(client, app, organization.id, user, query))

    assert await ids(agent, "?assigned=me") == [mine]
    assert await ids(other, "?assigned=me") == [others]
    assert await ids(manager, "?assigned=me") == []
    assert await ids(agent, "?assigned=none") == [nobodys]
    assert await ids(agent, "?assigned=any") == [mine, others, nobodys]
    assert await ids(manager, f"?agentId={other.id}") == [others]
    assert await ids(agent, "?status=in_progress") == [mine]
    assert await ids(agent, "?status=open&assigned=none") == [nobodys]
    assert await ids(agent, "?brand=zeta") == [others]
    assert await ids(agent, "?brand=%20ACME%20") == [mine, nobodys]
    assert await ids(agent, "?q=LOUD") == [nobodys]  # the description, any case
    assert await ids(agent, "?q=dryer") == [others]  # the product's name
    assert await ids(agent, "?q=50%25") == [mine]  # % and _ are themselves
    assert await ids(agent, "?q=r_x") == [others]
    assert await ids(agent, "?q=%25%25") == []
    assert await ids(agent, "?q=r%25x") == []
    assert await ids(agent, "?q=%20") == [mine, others, nobodys]  # blank: no filter
    total = (await _queue(client, app, organization.id, agent, "?q=loud&limit=1")).json()["meta"]["total"]
    assert total == 1


@pytest.mark.parametrize(
    "query, field",
    [
        ("?status=waiting", "status"),
        ("?assigned=someone", "assigned"),
        ("?agentId=abc", "agentId"),
        ("?agentId=0", "agentId"),
        ("?q=" + "x" * 256, "q"),
        ("?brand=" + "x" * 101, "brand"),
    ],
)
async def test_bad_filters_are_400(app: FastAPI, client: httpx.AsyncClient, query: str, field: str) -> None:
    organization, manager, _ = await staffed_organization(app, "Acme Service", ["Acme"])
    error = assert_error(await _queue(client, app, organization.id, manager, query), 400, "VALIDATION_FAILED")
    assert field in error["details"]["fields"]


async def test_sort_is_by_creation_or_due_time(app: FastAPI, client: httpx.AsyncClient) -> None:
    organization, manager, _ = await staffed_organization(app, "Acme Service", ["Acme"])
    claim = await queued(app, organization, await create_user(app))
    assert _ids(await _queue(client, app, organization.id, manager, "?sort=created")) == [claim]
    other = assert_error(
        await _queue(client, app, organization.id, manager, "?sort=name"), 400, "VALIDATION_INVALID_SORT"
    )
    assert "created, due" in other["message"]


async def _count(
    client: httpx.AsyncClient, app: FastAPI, organization_id: int, user: User, query: str
) -> int:
    with count_queries(app) as statements:
        response = await _queue(client, app, organization_id, user, query)
    assert response.status_code == 200, response.text
    return len(statements)


@pytest.mark.parametrize("query", ["", "?limit=50", "?assigned=none&q=drum&brand=acme", "?status=open"])
async def test_the_queue_costs_the_same_with_1_or_50_agents(
    app: FastAPI, client: httpx.AsyncClient, query: str
) -> None:
    organization, manager, (agent,) = await staffed_organization(app, "Acme Service", ["Acme"], agents=1)
    customer = await create_user(app)
    await queued(app, organization, customer, description="drum")
    admin = await create_admin(app)
    small = [await _count(client, app, organization.id, user, query) for user in (agent, manager, admin)]

    agents = [agent]
    for _ in range(49):
        agents.append(await create_supplier(app))
        await add_org_member(app, organization, agents[-1], OrganizationRole.AGENT)
    for number in range(59):
        await queued(
            app, organization, customer, agent=agents[number % 50] if number % 2 else None, description="drum"
        )
    large = [await _count(client, app, organization.id, user, query) for user in (agent, manager, admin)]

    assert small == large
    assert small[0] == small[1] == 4  # the caller, their membership, the page, the total
    page = (await _queue(client, app, organization.id, agent, query)).json()
    assert len(page["data"]) in (20, 30, 50)


def _plan(statement: Any, is_postgres: bool) -> str:
    dialect = postgresql.dialect() if is_postgres else sqlite.dialect()
    return str(statement.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))


@pytest.mark.parametrize(
    "where, sort, index",
    [
        (QueueFilter(), "created", "ix_claims_organization_created_id"),
        (QueueFilter(status="open"), "created", "ix_claims_organization_status_created_id"),
        (QueueFilter(), "due", "ix_claim_deadlines_organization_next_due"),
    ],
)
async def test_the_queue_reads_its_indexes(
    app: FastAPI, is_postgres: bool, where: QueueFilter, sort: str, index: str
) -> None:
    statement = _plan(queue_rows(7, where, 1, sort=sort).limit(21), is_postgres)
    async with app.state.engine.connect() as connection:
        if is_postgres:
            await connection.execute(text("SET LOCAL enable_seqscan = off"))
            await connection.execute(text("SET LOCAL enable_sort = off"))
            plan = "\n".join(row[0] for row in await connection.exec_driver_sql(f"EXPLAIN {statement}"))
        else:
            rows = await connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}")
            plan = "\n".join(str(row[-1]) for row in rows)
    assert index in plan, plan
