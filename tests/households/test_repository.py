"""What the households' statements read and write: a fixed number of statements per request whatever the
number of households, members and invitations, and a deleted household's rows gone with it."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.models import HouseholdInvitation, HouseholdMember, User
from tests.factories.users import auth_headers, create_user
from tests.helpers import count_queries
from tests.households.steps import add_member, create_household, invite


async def _count(
    app: FastAPI, client: httpx.AsyncClient, user: User, path: str
) -> tuple[int, httpx.Response]:
    with count_queries(app) as statements:
        response = await client.get(path, headers=auth_headers(app, user))
    assert response.status_code == 200, response.text
    return len(statements), response


async def _households(app: FastAPI, client: httpx.AsyncClient, user: User, count: int, members: int) -> int:
    """`count` households of `user`, each with `members` other members; answers the last one's id."""
    household_id = 0
    for _ in range(count):
        household_id = await create_household(app, client, user)
        for number in range(members):
            await add_member(app, household_id, await create_user(app), ("member", "viewer")[number % 2])
    return household_id


@pytest.mark.parametrize("path", ["/api/households", "/api/households?limit=50"])
async def test_the_list_runs_a_fixed_number_of_statements(
    app: FastAPI, client: httpx.AsyncClient, path: str
) -> None:
    ann = await create_user(app)
    await _households(app, client, ann, 1, 0)
    one, _ = await _count(app, client, ann, path)

    await _households(app, client, ann, 19, 4)
    many, response = await _count(app, client, ann, path)

    assert one == many
    data = response.json()["data"]
    assert len(data) == 20 and sum(len(item["members"]) for item in data) == 1 + 19 * 5


async def test_a_household_and_its_invitations_read_in_a_fixed_number_of_statements(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann = await create_user(app)
    household_id = await _households(app, client, ann, 1, 0)
    await invite(app, client, ann, household_id, "guest0@example.com")
    detail = f"/api/households/{household_id}"
    invitations = f"{detail}/invitations?limit=50"
    few = [(await _count(app, client, ann, path))[0] for path in (detail, invitations)]

    for number in range(12):
        await add_member(app, household_id, await create_user(app))
        await invite(app, client, ann, household_id, f"guest{number + 1}@example.com")
    many = [(await _count(app, client, ann, path))[0] for path in (detail, invitations)]

    assert few == many
    assert len((await client.get(detail, headers=auth_headers(app, ann))).json()["members"]) == 13


async def test_a_deleted_household_leaves_no_rows(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann, bob = await create_user(app), await create_user(app)
    gone = await create_household(app, client, ann)
    kept = await create_household(app, client, ann)
    for household_id in (gone, kept):
        await add_member(app, household_id, bob)
        await invite(app, client, ann, household_id, "carl@example.com")

    response = await client.delete(f"/api/households/{gone}", headers=auth_headers(app, ann))

    assert response.status_code == 204
    async with app.state.sessionmaker() as session:
        members = await session.scalar(select(func.count()).select_from(HouseholdMember))
        invitations = list(await session.scalars(select(HouseholdInvitation.household_id)))
    assert members == 2 and invitations == [kept]
    assert await create_household(app, client, ann) > kept  # ids are never given again
