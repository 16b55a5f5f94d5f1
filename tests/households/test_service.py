"""The rules of households, over HTTP: roles are the owners' to change, a member may leave, a household
keeps at least one owner (also when two requests race), seats are limited, and the place where the end of
someone's access is recorded is reached for each way it ends."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.households import service
from app.models import Product, User
from app.outbox.worker import OutboxWorker
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error
from tests.households.steps import accept, add_member, create_household, get, invite, invited_token, roles
from tests.support.smtp import Inbox


def _member_path(household_id: int, user: User | int) -> str:
    user_id = user if isinstance(user, int) else user.id
    return f"/api/households/{household_id}/members/{user_id}"


async def _set_role(
    app: FastAPI, client: httpx.AsyncClient, by: User, household_id: int, target: User | int, role: str
) -> httpx.Response:
    return await client.patch(
        _member_path(household_id, target), json={"role": role}, headers=auth_headers(app, by)
    )


async def _remove(
    app: FastAPI, client: httpx.AsyncClient, by: User, household_id: int, target: User | int
) -> httpx.Response:
    return await client.delete(_member_path(household_id, target), headers=auth_headers(app, by))


async def _roles(app: FastAPI, client: httpx.AsyncClient, user: User, household_id: int) -> dict[int, str]:
    return roles((await get(app, client, user, f"/api/households/{household_id}")).json())


async def test_owners_change_roles(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner, bob = await create_user(app), await create_user(app, name="Bob", email="bob@example.com")
    household_id = await create_household(app, client, owner)
    await add_member(app, household_id, bob, "viewer")

    promoted = await _set_role(app, client, owner, household_id, bob, "member")

    assert promoted.status_code == 200, promoted.text
    body = promoted.json()
    assert body == {**body, "userId": bob.id, "name": "Bob", "email": "bob@example.com", "role": "member"}
    assert (await _set_role(app, client, owner, household_id, bob, "owner")).json()["role"] == "owner"
    # Two owners now: the first may step down.
    assert (await _set_role(app, client, owner, household_id, owner, "viewer")).status_code == 200
    assert await _roles(app, client, bob, household_id) == {owner.id: "viewer", bob.id: "owner"}


async def test_members_and_viewers_may_not_change_roles_or_remove_others(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner, member, viewer, stranger = [await create_user(app) for _ in range(4)]
    household_id = await create_household(app, client, owner)
    await add_member(app, household_id, member, "member")
    await add_member(app, household_id, viewer, "viewer")

    for actor in (member, viewer):
        for target in (owner, member, viewer):
            assert_error(await _set_role(app, client, actor, household_id, target, "owner"), 403, "FORBIDDEN")
        other = viewer if actor == member else member
        assert_error(await _remove(app, client, actor, household_id, other), 403, "FORBIDDEN")
        assert_error(await _remove(app, client, actor, household_id, owner), 403, "FORBIDDEN")
    assert_error(await _set_role(app, client, stranger, household_id, member, "owner"), 404, "NOT_FOUND")
    assert_error(await _remove(app, client, stranger, household_id, member), 404, "NOT_FOUND")
    assert await _roles(app, client, owner, household_id) == {
        owner.id: "owner",
        member.id: "member",
        viewer.id: "viewer",
    }


async def test_a_member_or_viewer_may_leave(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner, member, viewer = [await create_user(app) for _ in range(3)]
    household_id = await create_household(app, client, owner)
    await add_member(app, household_id, member, "member")
    await add_member(app, household_id, viewer, "viewer")

    for user in (member, viewer):
        left = await _remove(app, client, user, household_id, user)
        assert left.status_code == 204 and left.content == b""
        assert_error(await get(app, client, user, f"/api/households/{household_id}"), 404, "NOT_FOUND")
    assert await _roles(app, client, owner, household_id) == {owner.id: "owner"}


async def test_owners_remove_members_and_other_owners(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner, co_owner, member = [await create_user(app) for _ in range(3)]
    household_id = await create_household(app, client, owner)
    await add_member(app, household_id, co_owner, "owner")
    await add_member(app, household_id, member, "member")

    assert (await _remove(app, client, owner, household_id, member)).status_code == 204
    assert (await _remove(app, client, co_owner, household_id, owner)).status_code == 204

    assert await _roles(app, client, co_owner, household_id) == {co_owner.id: "owner"}
    assert_error(await get(app, client, owner, f"/api/households/{household_id}"), 404, "NOT_FOUND")


async def test_the_last_owner_stays(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner, member = await create_user(app), await create_user(app)
    household_id = await create_household(app, client, owner)
    await add_member(app, household_id, member, "member")

    for role in ("member", "viewer"):
        assert_error(await _set_role(app, client, owner, household_id, owner, role), 409, "LAST_OWNER")
    assert_error(await _remove(app, client, owner, household_id, owner), 409, "LAST_OWNER")
    # Once another member is an owner, the first may go.
    assert (await _set_role(app, client, owner, household_id, member, "owner")).status_code == 200
    assert (await _remove(app, client, owner, household_id, owner)).status_code == 204
    assert_error(await _remove(app, client, member, household_id, member), 409, "LAST_OWNER")
    assert await _roles(app, client, member, household_id) == {member.id: "owner"}


async def test_owner_to_owner_is_no_change_for_the_last_owner(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    household_id = await create_household(app, client, owner)

    same = await _set_role(app, client, owner, household_id, owner, "owner")

    assert same.status_code == 200 and same.json()["role"] == "owner"


async def test_two_owners_leaving_at_once_leave_one_owner(app: FastAPI, client: httpx.AsyncClient) -> None:
    pairs = [(await create_user(app), await create_user(app)) for _ in range(5)]
    households = []
    for ann, bob in pairs:
        households.append(await create_household(app, client, ann))
        await add_member(app, households[-1], bob, "owner")

    # Every owner of the five households leaves at the same moment.
    answers = await asyncio.gather(
        *(
            _remove(app, client, user, household_id, user)
            for household_id, pair in zip(households, pairs, strict=True)
            for user in pair
        )
    )

    for index, (household_id, pair) in enumerate(zip(households, pairs, strict=True)):
        ann_left, bob_left = answers[2 * index : 2 * index + 2]
        assert sorted([ann_left.status_code, bob_left.status_code]) == [204, 409]
        stayed = pair[0] if ann_left.status_code == 409 else pair[1]
        assert await _roles(app, client, stayed, household_id) == {stayed.id: "owner"}


async def test_unknown_members_are_404(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner, stranger = await create_user(app), await create_user(app)
    household_id = await create_household(app, client, owner)

    for target in (stranger.id, stranger.id + 1000, 0, -5, 99999999999999999999):
        assert_error(await _set_role(app, client, owner, household_id, target, "member"), 404, "NOT_FOUND")
        assert_error(await _remove(app, client, owner, household_id, target), 404, "NOT_FOUND")
    bad = await _set_role(app, client, owner, household_id, stranger, "admin")
    assert_error(bad, 400, "VALIDATION_FAILED")


async def test_a_removed_member_takes_their_shared_products_with_them(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner, bob = await create_user(app), await create_user(app)
    household_id = await create_household(app, client, owner)
    await add_member(app, household_id, bob, "member")
    bobs = await create_product(app, bob, household_id=household_id)
    owners = await create_product(app, owner, household_id=household_id)

    assert (await _remove(app, client, owner, household_id, bob)).status_code == 204

    async with app.state.sessionmaker() as session:
        shared = {
            row.id: row.household_id
            for row in await session.execute(select(Product.id, Product.household_id))
        }
    assert shared == {bobs.id: None, owners.id: household_id}


async def test_deleting_a_household_unshares_its_products(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner, bob = await create_user(app), await create_user(app)
    household_id = await create_household(app, client, owner)
    await add_member(app, household_id, bob, "member")
    product = await create_product(app, bob, household_id=household_id)

    deleted = await client.delete(f"/api/households/{household_id}", headers=auth_headers(app, owner))

    assert deleted.status_code == 204
    async with app.state.sessionmaker() as session:
        kept = await session.get(Product, product.id)
    assert kept is not None and kept.household_id is None and kept.owner_id == bob.id


@pytest.fixture
def access_changed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, list[int]]]:
    """What `record_access_changed` was told, call by call."""
    calls: list[tuple[int, list[int]]] = []

    async def record(_session: AsyncSession, household_id: int, user_ids: Sequence[int]) -> None:
        calls.append((household_id, sorted(user_ids)))

    monkeypatch.setattr(service, "record_access_changed", record)
    return calls


async def test_every_change_of_access_is_recorded(
    app: FastAPI,
    client: httpx.AsyncClient,
    worker: OutboxWorker,
    inbox: Inbox,
    access_changed: list[tuple[int, list[int]]],
) -> None:
    owner, member, viewer = [await create_user(app) for _ in range(3)]
    joiner = await create_user(app, email="joiner@example.com")
    household_id = await create_household(app, client, owner)
    for user, role in ((member, "member"), (viewer, "viewer")):
        await add_member(app, household_id, user, role)
    token = await invited_token(app, client, worker, inbox, owner, household_id, "joiner@example.com")

    await _set_role(app, client, owner, household_id, viewer, "member")  # a role change is not one
    assert access_changed == []
    assert (await accept(app, client, joiner, token)).status_code == 200
    await _remove(app, client, member, household_id, member)
    await _remove(app, client, owner, household_id, viewer)
    await _remove(app, client, owner, household_id, owner)  # refused: the last owner
    await client.delete(f"/api/households/{household_id}", headers=auth_headers(app, owner))

    # A departure changes everyone's view (the leaver's shared products leave the others too).
    assert [(household, sorted(users)) for household, users in access_changed] == [
        (household_id, [joiner.id]),
        (household_id, sorted([owner.id, member.id, viewer.id, joiner.id])),
        (household_id, sorted([owner.id, viewer.id, joiner.id])),
        (household_id, sorted([owner.id, joiner.id])),
    ]


async def test_a_household_has_a_limited_number_of_seats(
    app: FastAPI, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service, "MAX_SEATS", 3)
    owner, member = await create_user(app), await create_user(app)
    household_id = await create_household(app, client, owner)
    await add_member(app, household_id, member, "member")
    assert (await invite(app, client, owner, household_id, "bob@example.com")).status_code == 201

    full = await invite(app, client, owner, household_id, "carl@example.com")

    assert_error(full, 409, "HOUSEHOLD_FULL")
    await _remove(app, client, owner, household_id, member)
    assert (await invite(app, client, owner, household_id, "carl@example.com")).status_code == 201
