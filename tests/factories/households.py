"""Households and their members, written straight to the database."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from fastapi import FastAPI

from app.core.clock import utc_now
from app.models import Household, HouseholdMember, User
from app.models.enums import HouseholdRole
from tests.factories.users import create_user

_counter = itertools.count(1)


async def create_household(app: FastAPI, owner: User, *, name: str | None = None) -> Household:
    """A household with `owner` as its (first) owner."""
    async with app.state.sessionmaker() as session, session.begin():
        household = Household(name=name or f"Household {next(_counter)}")
        session.add(household)
        await session.flush()
        session.add(_membership(household.id, owner.id, HouseholdRole.OWNER))
    return household


async def add_member(
    app: FastAPI, household: Household, user: User, role: HouseholdRole = HouseholdRole.MEMBER
) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        session.add(_membership(household.id, user.id, role))


def _membership(household_id: int, user_id: int, role: HouseholdRole) -> HouseholdMember:
    return HouseholdMember(household_id=household_id, user_id=user_id, role=role, joined_at=utc_now())


@dataclass(frozen=True)
class HouseholdCast:
    """A household with one user in each role."""

    household: Household
    owner: User
    member: User
    viewer: User


async def household_cast(app: FastAPI) -> HouseholdCast:
    owner = await create_user(app, name="Olga Owner")
    member, viewer = await create_user(app, name="Max Member"), await create_user(app, name="Vera Viewer")
    household = await create_household(app, owner)
    await add_member(app, household, member)
    await add_member(app, household, viewer, HouseholdRole.VIEWER)
    return HouseholdCast(household, owner, member, viewer)
