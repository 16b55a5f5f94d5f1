"""The calendar routes (app/calendar/router.py): the signed-in user's feed URL and its rotation, and the feed
itself, opened by its token alone: unknown, malformed and rotated tokens are 404, a deleted account's too."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
import pytest
from fastapi import FastAPI

from tests.calendar.support import feed_path
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error


async def test_rotation_replaces_the_url_and_the_old_one_answers_404(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    await create_product(app, owner)
    headers = auth_headers(app, owner)
    old = await feed_path(client, headers)

    response = await client.post("/api/me/calendar/rotate", headers=headers)

    assert response.status_code == 200, response.text
    new = urlsplit(response.json()["url"]).path
    assert new != old
    assert_error(await client.get(old), 404, "NOT_FOUND")
    assert (await client.get(new)).status_code == 200
    assert await feed_path(client, headers) == new


@pytest.mark.parametrize(
    "token",
    ["A" * 43, "short", "A" * 64, "A" * 65, "A" * 4000, "%01" * 10, "..%2F..%2Fetc"],
)
async def test_an_unknown_or_malformed_token_is_a_404(
    app: FastAPI, client: httpx.AsyncClient, token: str
) -> None:
    owner = await create_user(app)
    await feed_path(client, auth_headers(app, owner))
    assert_error(await client.get(f"/api/calendar/{token}.ics"), 404, "NOT_FOUND")


async def test_a_nul_in_the_token_is_refused_like_any_nul_in_a_path(client: httpx.AsyncClient) -> None:
    assert_error(await client.get(f"/api/calendar/{'%00' * 10}.ics"), 400, "VALIDATION_FAILED")


async def test_the_feed_url_needs_a_signed_in_user(app: FastAPI, client: httpx.AsyncClient) -> None:
    assert_error(await client.get("/api/me/calendar"), 401, "AUTH_REQUIRED")
    assert_error(await client.post("/api/me/calendar/rotate"), 401, "AUTH_REQUIRED")


async def test_a_deleted_account_takes_its_feed_along(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)
    path = await feed_path(client, headers)
    assert (await client.delete("/api/me", headers=headers)).status_code == 204
    assert_error(await client.get(path), 404, "NOT_FOUND")


@pytest.mark.settings(base_url="https://warranty.example.com/")
async def test_the_feed_url_and_the_feed_s_headers(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app)
    await create_product(app, owner)

    answer = (await client.get("/api/me/calendar", headers=auth_headers(app, owner))).json()
    feed = await client.get(urlsplit(answer["url"]).path)

    token = urlsplit(answer["url"]).path.removeprefix("/api/calendar/").removesuffix(".ics")
    assert answer == {
        "url": f"https://warranty.example.com/api/calendar/{token}.ics",
        "webcalUrl": f"webcal://warranty.example.com/api/calendar/{token}.ics",
    }
    assert feed.status_code == 200
    assert feed.headers["cache-control"] == "private, max-age=300"
    assert feed.headers["content-disposition"] == 'inline; filename="warranty.ics"'
    assert feed.headers["content-type"] == "text/calendar; charset=utf-8"
