"""Who belongs to a household, and as what (app.access.households): a member's role, 404 alike for a missing
household and one of other people, 403 worded for the role that was missing, and the member lists that
decide who a change of the household's shared things concerns."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from app.access.households import (
    household_ids_of,
    member_ids,
    members_sharing,
    owner_count,
    require_role,
    role_in,
)
from app.core.ids import MAX_ID
from app.errors import Forbidden, NotFound
from app.models.enums import HouseholdRole
from tests.factories.households import add_member, create_household, household_cast
from tests.factories.products import create_product
from tests.factories.users import create_admin, create_user

OWNER, MEMBER, VIEWER = HouseholdRole.OWNER, HouseholdRole.MEMBER, HouseholdRole.VIEWER


async def test_role_in_is_the_members_role_and_none_for_anyone_else(app: FastAPI) -> None:
    cast = await household_cast(app)
    stranger, admin = await create_user(app), await create_admin(app)
    household_id = cast.household.id

    async with app.state.sessionmaker() as session:
        assert await role_in(session, cast.owner.id, household_id) == OWNER
        assert await role_in(session, cast.member.id, household_id) == MEMBER
        assert await role_in(session, cast.viewer.id, household_id) == VIEWER
        assert await role_in(session, stranger.id, household_id) is None
        assert await role_in(session, admin.id, household_id) is None  # admins are no members
        assert await role_in(session, cast.owner.id, household_id + 1) is None


@pytest.mark.parametrize("household_id", [0, -1, MAX_ID + 1, 2**63])
async def test_role_in_answers_none_for_ids_no_household_can_have(app: FastAPI, household_id: int) -> None:
    user = await create_user(app)
    async with app.state.sessionmaker() as session:
        assert await role_in(session, user.id, household_id) is None


async def test_require_role_answers_the_role_of_a_member_holding_one_allowed(app: FastAPI) -> None:
    cast = await household_cast(app)
    household_id = cast.household.id

    async with app.state.sessionmaker() as session:
        assert await require_role(session, cast.viewer.id, household_id) == VIEWER  # any role
        assert await require_role(session, cast.member.id, household_id, OWNER, MEMBER) == MEMBER
        assert await require_role(session, cast.owner.id, household_id, OWNER) == OWNER


async def test_require_role_is_404_for_a_stranger_as_for_a_missing_household(app: FastAPI) -> None:
    cast = await household_cast(app)
    stranger = await create_user(app)

    async with app.state.sessionmaker() as session:
        for user_id, household_id in ((stranger.id, cast.household.id), (cast.owner.id, MAX_ID)):
            with pytest.raises(NotFound) as raised:
                await require_role(session, user_id, household_id, OWNER)
            assert raised.value.message == "No such household."


async def test_require_role_is_403_worded_for_what_was_missing(app: FastAPI) -> None:
    cast = await household_cast(app)
    household_id = cast.household.id

    async with app.state.sessionmaker() as session:
        with pytest.raises(Forbidden) as only_owners:
            await require_role(session, cast.member.id, household_id, OWNER)
        with pytest.raises(Forbidden) as writers:
            await require_role(session, cast.viewer.id, household_id, OWNER, MEMBER)

    assert only_owners.value.message == "Only the household's owners may do this."
    assert writers.value.message == "Viewers may only read."


async def test_household_ids_of_are_the_users_households_in_any_role(app: FastAPI) -> None:
    cast = await household_cast(app)
    second = await create_household(app, cast.viewer)
    await create_household(app, cast.owner)
    await add_member(app, second, cast.member, VIEWER)
    nobody = await create_user(app)

    async with app.state.sessionmaker() as session:
        viewer_in = set(await session.scalars(household_ids_of(cast.viewer.id)))
        member_in = set(await session.scalars(household_ids_of(cast.member.id)))
        nobody_in = list(await session.scalars(household_ids_of(nobody.id)))

    assert viewer_in == member_in == {cast.household.id, second.id}
    assert nobody_in == []


async def test_member_ids_and_owner_count_are_of_that_household_only(app: FastAPI) -> None:
    cast = await household_cast(app)
    other = await create_household(app, cast.member)  # the member owns another household
    await add_member(app, cast.household, await create_user(app), OWNER)

    async with app.state.sessionmaker() as session:
        members = sorted(await member_ids(session, cast.household.id))
        assert await owner_count(session, cast.household.id) == 2
        assert await owner_count(session, other.id) == 1
        assert await member_ids(session, other.id) == [cast.member.id]
        assert await owner_count(session, MAX_ID) == 0 and await member_ids(session, MAX_ID) == []

    assert len(members) == 4 and {cast.owner.id, cast.member.id, cast.viewer.id} < set(members)


async def test_members_sharing_are_the_members_of_the_products_household(app: FastAPI) -> None:
    cast = await household_cast(app)
    neighbour = await create_user(app)
    elsewhere = await create_household(app, neighbour)
    shared = await create_product(app, cast.member, household_id=cast.household.id)
    private = await create_product(app, cast.owner)
    shared_elsewhere = await create_product(app, cast.owner, household_id=elsewhere.id)

    async with app.state.sessionmaker() as session:
        assert await members_sharing(session, shared.id) == sorted(
            [cast.owner.id, cast.member.id, cast.viewer.id]
        )
        assert await members_sharing(session, private.id) == []
        assert await members_sharing(session, shared_elsewhere.id) == [neighbour.id]
        assert await members_sharing(session, MAX_ID) == []
