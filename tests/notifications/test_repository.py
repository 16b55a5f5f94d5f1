"""Device tokens per user (app/notifications/repository.py): a token already known moves to who registers it
(the device changed hands), a user keeps only their most recently registered tokens, and only the owner
may remove one."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.errors import NotFound
from app.models.enums import Platform
from app.notifications.repository import DeviceTokenRepository
from tests.factories.users import auth_headers, create_user
from tests.notifications.support import register_device


async def test_registering_again_moves_the_token_and_keeps_only_the_newest(app: FastAPI) -> None:
    ann, bob = await create_user(app), await create_user(app)

    async with app.state.sessionmaker() as session, session.begin():
        tokens = DeviceTokenRepository(session)
        for token in ("a", "b", "c"):
            await tokens.register(ann.id, token, Platform.IOS, max_per_user=3)
        moved = await tokens.register(bob.id, "a", Platform.WEB, max_per_user=3)
        await tokens.register(ann.id, "b", Platform.ANDROID, max_per_user=3)  # b is the newest now
        await tokens.register(ann.id, "d", Platform.IOS, max_per_user=2)
        anns = [(row.token, row.platform) for row in await tokens.list_for(ann.id)]
        bobs = [(row.token, row.platform) for row in await tokens.list_for(bob.id)]

    assert (moved.user_id, moved.platform, moved.created_at is not None) == (bob.id, Platform.WEB, True)
    assert anns == [("b", Platform.ANDROID), ("d", Platform.IOS)]  # c, the least recently registered, went
    assert bobs == [("a", Platform.WEB)]


async def test_only_the_owner_removes_a_token(app: FastAPI) -> None:
    ann, bob = await create_user(app), await create_user(app)
    async with app.state.sessionmaker() as session, session.begin():
        await DeviceTokenRepository(session).register(ann.id, "ann-phone", Platform.IOS, max_per_user=20)

    async with app.state.sessionmaker() as session, session.begin():
        tokens = DeviceTokenRepository(session)
        with pytest.raises(NotFound):
            await tokens.remove(bob.id, "ann-phone")
        with pytest.raises(NotFound):
            await tokens.remove(ann.id, "unknown")
        await tokens.remove(ann.id, "ann-phone")
        assert await tokens.list_for(ann.id) == []


async def test_re_registering_a_token_moves_it_to_the_caller(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann, bob = await create_user(app), await create_user(app)
    await register_device(client, auth_headers(app, ann), "shared", "android")

    moved = await register_device(client, auth_headers(app, bob), "shared", "web")

    assert moved.status_code == 201 and moved.json()["platform"] == "web"
    assert (await client.get("/api/device-tokens", headers=auth_headers(app, ann))).json() == []
    [item] = (await client.get("/api/device-tokens", headers=auth_headers(app, bob))).json()
    assert item["token"] == "shared"
    again = await register_device(client, auth_headers(app, bob), "shared", "web")
    assert again.status_code == 201


async def test_a_user_keeps_the_twenty_most_recently_registered_tokens(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bob = await create_user(app), await create_user(app)
    ann_headers = auth_headers(app, ann)
    await register_device(client, auth_headers(app, bob), "bob-phone", "ios")
    for number in range(20):
        await register_device(client, ann_headers, f"t{number}", "android")
    await register_device(client, ann_headers, "t0", "android")  # registered again: the newest now

    for number in range(20, 25):
        assert (await register_device(client, ann_headers, f"t{number}", "android")).status_code == 201

    kept = [item["token"] for item in (await client.get("/api/device-tokens", headers=ann_headers)).json()]
    assert sorted(kept) == sorted(["t0", *(f"t{number}" for number in range(6, 25))])
    assert [
        item["token"]
        for item in (await client.get("/api/device-tokens", headers=auth_headers(app, bob))).json()
    ] == ["bob-phone"]
