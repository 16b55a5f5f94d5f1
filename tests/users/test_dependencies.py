"""The users routes' own dependencies (app.users.dependencies): the user a path names (an admin gets
anyone, 404 when there is none; anyone else only themselves, 403 for any other id), a valid id, and the
list's filter."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.errors import Forbidden, NotFound
from app.users.dependencies import user_filter, visible_user
from app.users.repository import UserFilter, UserRepository
from tests.factories.users import auth_headers, create_admin, create_user
from tests.helpers import assert_error


async def test_a_user_gets_their_own_id(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    headers = auth_headers(app, user)

    response = await client.get(f"/api/users/{user.id}", headers=headers)

    assert response.status_code == 200
    me = (await client.get("/api/me", headers=headers)).json()
    assert me.pop("identities") == [] and response.json() == me


@pytest.mark.parametrize("bad_id", ["abc", "0", "-1", "99999999999999999999", "1.5"])
async def test_user_ids_are_validated(app: FastAPI, client: httpx.AsyncClient, bad_id: str) -> None:
    headers = auth_headers(app, await create_admin(app))

    assert_error(await client.get(f"/api/users/{bad_id}", headers=headers), 400, "VALIDATION_FAILED")


async def test_an_admin_sees_anyone_and_anyone_else_only_themselves(app: FastAPI) -> None:
    admin, user, other = await create_admin(app), await create_user(app), await create_user(app)
    async with app.state.sessionmaker() as session:
        users = UserRepository(session)
        assert await visible_user(user.id, user, users) is user
        assert (await visible_user(other.id, admin, users)).id == other.id
        for target in (other.id, other.id + 1000):  # existing or not: the same refusal
            with pytest.raises(Forbidden):
                await visible_user(target, user, users)
        with pytest.raises(NotFound):
            await visible_user(other.id + 1000, admin, users)


async def test_the_list_filter_is_trimmed_and_a_blank_search_is_none() -> None:
    assert await user_filter(search="  Ann ", role="ROLE_SUPPLIER") == UserFilter("Ann", "ROLE_SUPPLIER")
    assert await user_filter(search="   ", role=None) == UserFilter()
    assert await user_filter() == UserFilter()
