"""The rules of accounts (app.users.service): a deleted account takes its data and files with it and leaves
the rest (observed through the API, in the database and the file store), and the last admin stays, also
when two admins remove or demote each other at once."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.errors import Conflict, NotFound
from app.models import (
    Claim,
    DeviceToken,
    Household,
    HouseholdMember,
    Message,
    MessageRead,
    Product,
    Receipt,
    RefreshToken,
    User,
)
from app.models.enums import HouseholdRole
from app.users import service
from app.users.repository import UserRepository
from app.users.schemas import AdminUserPatch
from tests.factories.claims import create_claim, create_message
from tests.factories.households import add_member, create_household
from tests.factories.products import create_product
from tests.factories.users import DEFAULT_PASSWORD, auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error, count_queries
from tests.support.images import image_bytes


async def _receipt(app: FastAPI, product: Product) -> str:
    key: str = await app.state.storage.save("receipts", b"%PDF-1.4 receipt", "pdf")
    async with app.state.sessionmaker() as session, session.begin():
        session.add(
            Receipt(
                product_id=product.id,
                file_name="r.pdf",
                file_type="pdf",
                mime_type="application/pdf",
                size=16,
                storage_key=key,
            )
        )
    return key


async def _attachment(app: FastAPI, claim: Claim, sender: User) -> tuple[Message, str]:
    key: str = await app.state.storage.save("attachments", image_bytes(), "png")
    message = await create_message(
        app,
        claim,
        sender,
        "see photo",
        attachment_name="a.png",
        attachment_mime="image/png",
        attachment_size=10,
        attachment_key=key,
    )
    return message, key


@dataclass
class World:
    victim: User
    other: User
    admin: User
    victim_claim: Claim
    supplied_claim: Claim
    victim_message_elsewhere: Message
    victim_files: list[str]
    other_files: list[str]
    refresh_token: str


async def _world(app: FastAPI, client: httpx.AsyncClient) -> World:
    """The victim is a supplier with products of their own; `other` is a customer the victim supplies."""
    admin = await create_admin(app)
    victim = await create_supplier(app, email="victim@example.com")
    other = await create_user(app)
    second_supplier = await create_supplier(app)

    victim_product = await create_product(app, victim)
    victim_files = [await _receipt(app, victim_product)]
    victim_claim = await create_claim(app, victim_product, supplier=second_supplier)
    await create_message(app, victim_claim, victim, "mine")
    _, key = await _attachment(app, victim_claim, second_supplier)
    victim_files.append(key)

    other_product = await create_product(app, other)
    other_files = [await _receipt(app, other_product)]
    supplied_claim = await create_claim(app, other_product, supplier=victim, status="in_progress")
    await create_message(app, supplied_claim, other, "hello")
    victim_message_elsewhere, key = await _attachment(app, supplied_claim, victim)
    other_files.append(key)  # an attachment in someone else's claim stays with that claim

    # A sign-in, a device token, a read mark and a profile picture of the victim.
    login = await client.post("/api/login", json={"email": victim.email, "password": DEFAULT_PASSWORD})
    assert login.status_code == 200
    picture = await client.post(
        "/api/user/profile-picture",
        headers=auth_headers(app, victim),
        files={"file": ("me.png", image_bytes(), "image/png")},
    )
    victim_files.append("avatars/" + picture.json()["profilePicture"].rsplit("/", 1)[-1])
    async with app.state.sessionmaker() as session, session.begin():
        session.add(DeviceToken(user_id=victim.id, token="device-1", platform="ios"))
        first_message = await session.scalar(select(Message.id).where(Message.claim_id == supplied_claim.id))
        session.add(MessageRead(message_id=first_message, user_id=victim.id, read_at=victim.created_at))
    return World(
        victim,
        other,
        admin,
        victim_claim,
        supplied_claim,
        victim_message_elsewhere,
        victim_files,
        other_files,
        login.json()["refreshToken"],
    )


async def _count(session: AsyncSession, model: type, *where: object) -> int:
    return await session.scalar(select(func.count()).select_from(model).where(*where)) or 0  # type: ignore[arg-type]


@pytest.mark.parametrize("by", ["self", "admin"])
async def test_deleting_a_user_takes_their_data_and_leaves_the_rest(
    app: FastAPI, client: httpx.AsyncClient, sessionmaker: async_sessionmaker[AsyncSession], by: str
) -> None:
    world = await _world(app, client)
    victim_id = world.victim.id
    storage = app.state.storage
    assert all(storage.path(key).exists() for key in world.victim_files + world.other_files)

    if by == "self":
        response = await client.delete("/api/me", headers=auth_headers(app, world.victim))
    else:
        response = await client.delete(f"/api/users/{victim_id}", headers=auth_headers(app, world.admin))

    assert response.status_code == 204
    # Through the API: the account is gone, its token dead, its refresh token too.
    admin_headers = auth_headers(app, world.admin)
    assert_error(await client.get(f"/api/users/{victim_id}", headers=admin_headers), 404, "NOT_FOUND")
    assert_error(
        await client.get("/api/me", headers=auth_headers(app, world.victim)), 401, "AUTH_TOKEN_INVALID"
    )
    listed = (await client.get("/api/users", headers=admin_headers)).json()["data"]
    assert victim_id not in [item["id"] for item in listed]
    login = await client.post(
        "/api/login", json={"email": "victim@example.com", "password": DEFAULT_PASSWORD}
    )
    assert_error(login, 401, "AUTH_INVALID_CREDENTIALS")
    # In the database.
    async with sessionmaker() as session:
        assert await _count(session, User, User.id == victim_id) == 0
        assert await _count(session, Product, Product.owner_id == victim_id) == 0
        assert await _count(session, Receipt) == 1  # the other person's
        assert await _count(session, Claim, Claim.id == world.victim_claim.id) == 0
        assert await _count(session, Message, Message.claim_id == world.victim_claim.id) == 0
        assert await _count(session, DeviceToken, DeviceToken.user_id == victim_id) == 0
        assert await _count(session, RefreshToken, RefreshToken.user_id == victim_id) == 0
        assert await _count(session, MessageRead, MessageRead.user_id == victim_id) == 0
        supplied = await session.get(Claim, world.supplied_claim.id)
        assert supplied is not None and supplied.supplier_id is None and supplied.status == "in_progress"
        kept = await session.get(Message, world.victim_message_elsewhere.id)
        assert kept is not None and kept.sender_id is None and kept.body == "see photo"
        assert await _count(session, Message, Message.claim_id == world.supplied_claim.id) == 2
    # On disk: the victim's files are gone, the other person's stay.
    assert not any(storage.path(key).exists() for key in world.victim_files)
    assert all(storage.path(key).exists() for key in world.other_files)
    refreshed = await client.post("/api/token/refresh", json={"refreshToken": world.refresh_token})
    assert_error(refreshed, 401, "AUTH_TOKEN_INVALID")
    async with sessionmaker() as session:
        assert await _count(session, Product, Product.owner_id == world.other.id) == 1


async def test_a_refused_delete_changes_nothing(
    app: FastAPI, client: httpx.AsyncClient, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    admin = await create_admin(app)
    product = await create_product(app, admin)
    key = await _receipt(app, product)

    assert_error(await client.delete("/api/me", headers=auth_headers(app, admin)), 409, "LAST_ADMIN")

    assert app.state.storage.path(key).exists()
    async with sessionmaker() as session:
        assert await _count(session, Product, Product.owner_id == admin.id) == 1


async def test_files_are_collected_in_a_fixed_number_of_queries(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    admin_headers = auth_headers(app, await create_admin(app))
    few, many = await create_user(app), await create_user(app)
    await _receipt(app, await create_product(app, few))
    keys = []
    for _ in range(6):
        product = await create_product(app, many)
        keys.append(await _receipt(app, product))
        claim = await create_claim(app, product, status="closed")
        keys.append((await _attachment(app, claim, many))[1])

    with count_queries(app) as small:
        assert (await client.delete(f"/api/users/{few.id}", headers=admin_headers)).status_code == 204
    with count_queries(app) as large:
        assert (await client.delete(f"/api/users/{many.id}", headers=admin_headers)).status_code == 204

    assert len(small) == len(large)
    assert not any(app.state.storage.path(key).exists() for key in keys)


async def test_the_last_admin_cannot_be_demoted_or_deleted(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = await create_admin(app)
    headers = auth_headers(app, admin)

    demote = await client.patch(f"/api/users/{admin.id}", headers=headers, json={"roles": ["ROLE_SUPPLIER"]})
    delete_me = await client.delete("/api/me", headers=headers)
    delete_by_id = await client.delete(f"/api/users/{admin.id}", headers=headers)

    for response in (demote, delete_me, delete_by_id):
        assert_error(response, 409, "LAST_ADMIN")
    assert (await client.get("/api/me", headers=headers)).json()["roles"] == ["ROLE_USER", "ROLE_ADMIN"]


async def test_an_admin_may_leave_while_another_admin_remains(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    first, second = await create_admin(app), await create_admin(app)

    demote = await client.patch(
        f"/api/users/{first.id}", headers=auth_headers(app, first), json={"roles": ["ROLE_USER"]}
    )
    assert demote.status_code == 200 and demote.json()["roles"] == ["ROLE_USER"]
    # `first` is no admin any more: the admin path is closed to them, and `second` is the last admin.
    assert_error(
        await client.delete(f"/api/users/{second.id}", headers=auth_headers(app, first)), 403, "FORBIDDEN"
    )
    assert_error(await client.delete("/api/me", headers=auth_headers(app, second)), 409, "LAST_ADMIN")
    promote = await client.patch(
        f"/api/users/{first.id}", headers=auth_headers(app, second), json={"roles": ["ROLE_ADMIN"]}
    )
    assert promote.status_code == 200
    assert (await client.delete("/api/me", headers=auth_headers(app, second))).status_code == 204


async def test_two_admins_removing_each_other_at_once_leave_one_admin(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    first, second = await create_admin(app), await create_admin(app)

    responses = await asyncio.gather(
        client.delete(f"/api/users/{second.id}", headers=auth_headers(app, first)),
        client.delete(f"/api/users/{first.id}", headers=auth_headers(app, second)),
    )

    statuses = sorted(response.status_code for response in responses)
    assert statuses[0] == 204 and statuses[1] in (401, 409), [r.text for r in responses]
    survivor = first if responses[0].status_code == 204 else second
    me = await client.get("/api/me", headers=auth_headers(app, survivor))
    assert me.status_code == 200 and "ROLE_ADMIN" in me.json()["roles"]


async def test_two_admins_demoting_each_other_at_once_leave_one_admin(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    first, second = await create_admin(app), await create_admin(app)
    demote = {"roles": ["ROLE_USER"]}

    responses = await asyncio.gather(
        client.patch(f"/api/users/{second.id}", headers=auth_headers(app, first), json=demote),
        client.patch(f"/api/users/{first.id}", headers=auth_headers(app, second), json=demote),
    )

    statuses = sorted(response.status_code for response in responses)
    assert statuses[0] == 200 and statuses[1] in (403, 409), [r.text for r in responses]
    admins = (await client.get("/api/users?role=ROLE_ADMIN", headers=auth_headers(app, first))).json()
    if admins.get("code") == "FORBIDDEN":
        admins = (await client.get("/api/users?role=ROLE_ADMIN", headers=auth_headers(app, second))).json()
    assert admins["meta"]["totalItems"] == 1


async def test_the_last_admin_may_change_anything_but_leave_the_admins(app: FastAPI) -> None:
    admin = await create_admin(app)
    async with app.state.sessionmaker() as session, session.begin():
        users = UserRepository(session)
        target = await service.get_or_404(users, admin.id)
        with pytest.raises(NotFound):
            await service.get_or_404(users, admin.id + 1000)

        patch = AdminUserPatch.model_validate({"name": "Still the admin", "roles": ["ROLE_ADMIN"]})
        changed = await service.update_user(target, patch, users=users)
        assert changed.name == "Still the admin" and changed.is_admin
        with pytest.raises(Conflict) as refused:
            await service.update_user(
                target, AdminUserPatch.model_validate({"roles": ["ROLE_SUPPLIER"]}), users=users
            )
        assert refused.value.code == "LAST_ADMIN"

        other = await service.create_user(
            email="Second.Admin@Example.com",
            name="Second",
            password_hash="x",
            roles=["ROLE_ADMIN"],
            users=users,
        )
        assert other.email == "second.admin@example.com"
        demoted = await service.update_user(target, AdminUserPatch.model_validate({"roles": []}), users=users)
        assert demoted.roles == ["ROLE_USER"]


async def test_a_deleted_last_owner_hands_each_household_to_its_longest_standing_member(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner, viewer, member, late = [await create_user(app) for _ in range(4)]
    shared = await create_household(app, owner)
    await add_member(app, shared, viewer, HouseholdRole.VIEWER)  # longest standing, but a viewer
    await add_member(app, shared, member)
    await add_member(app, shared, late)
    alone = await create_household(app, owner)
    co_owned = await create_household(app, owner)
    await add_member(app, co_owned, member, HouseholdRole.OWNER)

    answer = await client.delete("/api/me", headers=auth_headers(app, owner))
    assert answer.status_code == 204, answer.text

    async with app.state.sessionmaker() as session:
        roles = dict(
            (await session.execute(
                select(HouseholdMember.household_id, HouseholdMember.role).where(
                    HouseholdMember.user_id == member.id
                )
            )).all()
        )  # fmt: skip
        assert await session.get(Household, alone.id) is None  # nobody else was in it
        viewer_role = await session.scalar(
            select(HouseholdMember.role).where(
                HouseholdMember.household_id == shared.id, HouseholdMember.user_id == viewer.id
            )
        )
    assert roles == {shared.id: HouseholdRole.OWNER, co_owned.id: HouseholdRole.OWNER}
    assert viewer_role == HouseholdRole.VIEWER
