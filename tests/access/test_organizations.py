"""Who works for a supplier organisation, and as what (app.access.organizations): a user's one membership,
404 alike for another organisation's people and a missing one, 403 for an agent where managers act,
admins passing without a membership, and the member lists a change of the organisation concerns."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from fastapi import FastAPI

from app.access.organizations import (
    Membership,
    manager_count,
    member_ids,
    membership_of,
    membership_of_id,
    organization_ids_of,
    require_member,
)
from app.core.ids import MAX_ID
from app.errors import Forbidden, NotFound
from app.models import Organization, User
from app.models.enums import OrganizationRole
from tests.factories.organizations import add_org_member, create_organization
from tests.factories.users import create_admin, create_supplier, create_user

MANAGER, AGENT = OrganizationRole.MANAGER, OrganizationRole.AGENT


@dataclass(frozen=True)
class Staff:
    acme: Organization
    other: Organization
    manager: User
    agent: User
    rival: User  # a manager of the other organisation


async def _staff(app: FastAPI) -> Staff:
    acme = await create_organization(app, "Acme", ["Gaggia"])
    other = await create_organization(app, "Other", ["Bosch"])
    manager = await create_supplier(app, name="Mia Manager")
    agent = await create_supplier(app, name="Al Agent")
    rival = await create_supplier(app, name="Rita Rival")
    await add_org_member(app, acme, manager, MANAGER)
    await add_org_member(app, acme, agent, AGENT)
    await add_org_member(app, other, rival, MANAGER)
    return Staff(acme, other, manager, agent, rival)


async def test_a_users_membership_is_their_organisation_and_role(app: FastAPI) -> None:
    staff = await _staff(app)
    loner = await create_supplier(app)

    async with app.state.sessionmaker() as session:
        assert await membership_of(session, staff.manager) == Membership(staff.acme.id, MANAGER)
        assert await membership_of(session, staff.agent) == Membership(staff.acme.id, AGENT)
        assert await membership_of_id(session, staff.rival.id) == Membership(staff.other.id, MANAGER)
        assert await membership_of(session, loner) is None
        assert await membership_of_id(session, MAX_ID) is None
        assert list(await session.scalars(organization_ids_of(staff.agent.id))) == [staff.acme.id]


async def test_members_pass_in_any_role_and_managers_where_managers_act(app: FastAPI) -> None:
    staff = await _staff(app)
    acme = staff.acme.id

    async with app.state.sessionmaker() as session:
        assert await require_member(session, staff.agent, acme) == Membership(acme, AGENT)
        assert await require_member(session, staff.manager, acme, MANAGER) == Membership(acme, MANAGER)
        assert await require_member(session, staff.agent, acme, MANAGER, AGENT) == Membership(acme, AGENT)


async def test_an_agent_is_403_where_only_managers_act(app: FastAPI) -> None:
    staff = await _staff(app)

    async with app.state.sessionmaker() as session:
        with pytest.raises(Forbidden) as raised:
            await require_member(session, staff.agent, staff.acme.id, MANAGER)

    assert raised.value.message == "Only the organization's managers may do this."


async def test_another_organisations_people_and_outsiders_get_404_as_for_a_missing_one(
    app: FastAPI,
) -> None:
    staff = await _staff(app)
    outsider = await create_user(app)

    async with app.state.sessionmaker() as session:
        for user, organization_id in (
            (staff.rival, staff.acme.id),  # a manager, but of the other organisation
            (outsider, staff.acme.id),
            (staff.manager, MAX_ID),
        ):
            with pytest.raises(NotFound) as raised:
                await require_member(session, user, organization_id)
            assert raised.value.message == "No such organization."


async def test_admins_pass_without_a_membership(app: FastAPI) -> None:
    staff = await _staff(app)
    admin = await create_admin(app)
    await add_org_member(app, staff.other, admin, AGENT)  # an admin who is an agent elsewhere

    async with app.state.sessionmaker() as session:
        assert await require_member(session, admin, staff.acme.id, MANAGER) is None
        # In their own organisation they are a member like any other: the role still counts.
        with pytest.raises(Forbidden):
            await require_member(session, admin, staff.other.id, MANAGER)


async def test_member_ids_and_manager_count_are_of_that_organisation_only(app: FastAPI) -> None:
    staff = await _staff(app)
    second_manager = await create_supplier(app)
    await add_org_member(app, staff.acme, second_manager, MANAGER)

    async with app.state.sessionmaker() as session:
        assert sorted(await member_ids(session, staff.acme.id)) == sorted(
            [staff.manager.id, staff.agent.id, second_manager.id]
        )
        assert await member_ids(session, staff.other.id) == [staff.rival.id]
        assert await manager_count(session, staff.acme.id) == 2
        assert await manager_count(session, staff.other.id) == 1
        assert await member_ids(session, MAX_ID) == [] and await manager_count(session, MAX_ID) == 0
