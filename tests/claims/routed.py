"""A claim routed to a supplier organisation, with everyone around it: the organisation's manager and two
agents, a rival organisation's manager and agent, the customer, an admin and an outsider."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI

from app.models import Organization, Product, User
from app.models.enums import OrganizationRole
from tests.factories.organizations import add_org_member, create_organization
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user


@dataclass
class Routed:
    organization: Organization
    manager: User
    agent: User
    other_agent: User
    rival: Organization
    rival_manager: User
    rival_agent: User
    customer: User
    admin: User
    outsider: User
    product: Product
    claim_id: int

    @property
    def path(self) -> str:
        return f"/api/claims/{self.claim_id}"


async def staffed_organization(
    app: FastAPI, name: str, brands: list[str], *, agents: int = 2, email: str | None = None
) -> tuple[Organization, User, list[User]]:
    """An organisation with a manager and `agents` agents (ROLE_SUPPLIER users)."""
    organization = await create_organization(app, name, brands, email=email)
    manager = await create_supplier(app, name=f"{name} manager")
    await add_org_member(app, organization, manager, OrganizationRole.MANAGER)
    staff = []
    for number in range(agents):
        agent = await create_supplier(app, name=f"{name} agent {number + 1}")
        await add_org_member(app, organization, agent, OrganizationRole.AGENT)
        staff.append(agent)
    return organization, manager, staff


async def open_claim(client: httpx.AsyncClient, app: FastAPI, customer: User, product: Product) -> Any:
    response = await client.post(
        "/api/claims",
        json={"productId": product.id, "description": "The drum does not turn."},
        headers=auth_headers(app, customer),
    )
    assert response.status_code == 201, response.text
    return response.json()


async def routed_claim(app: FastAPI, client: httpx.AsyncClient, *, email: str | None = None) -> Routed:
    """An `open` claim routed, through the API, to "Acme Service" (brand Acme), with no agent yet."""
    organization, manager, (agent, other_agent) = await staffed_organization(
        app, "Acme Service", ["Acme"], email=email
    )
    rival, rival_manager, (rival_agent,) = await staffed_organization(
        app, "Rival Repairs", ["Rival"], agents=1
    )
    customer = await create_user(app, name="Ann Customer")
    product = await create_product(app, customer, name="Washer", brand="Acme")
    claim = await open_claim(client, app, customer, product)
    return Routed(
        organization,
        manager,
        agent,
        other_agent,
        rival,
        rival_manager,
        rival_agent,
        customer,
        await create_admin(app, name="Ada Admin"),
        await create_user(app, name="Otto Outsider"),
        product,
        claim["id"],
    )
