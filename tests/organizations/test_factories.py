"""The organisation factories write what the API would."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import select

from app.models import OrganizationBrand, OrganizationMember
from app.models.enums import OrganizationRole
from tests.factories.organizations import add_org_member, create_organization
from tests.factories.users import create_supplier


async def test_factories_write_organisation_brands_and_members(app: FastAPI) -> None:
    organization = await create_organization(app, "Acme", [" Acme ", "acme", "Roadrunner"])
    user = await create_supplier(app)
    await add_org_member(app, organization, user, OrganizationRole.MANAGER)
    async with app.state.sessionmaker() as session:
        brands = (await session.execute(select(OrganizationBrand.key, OrganizationBrand.name))).all()
        member = (await session.execute(select(OrganizationMember))).scalar_one()
    assert sorted(brands) == [("acme", "Acme"), ("roadrunner", "Roadrunner")]
    assert (member.user_id, member.organization_id, member.role) == (user.id, organization.id, "manager")
