"""12.2: an access token issued before a password change or reset is refused, cached pages included."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from tests.factories.users import DEFAULT_PASSWORD, create_user
from tests.helpers import assert_error

NEW_PASSWORD = "brand new secret"


async def _sign_in(client: httpx.AsyncClient, password: str = DEFAULT_PASSWORD) -> dict[str, str]:
    response = await client.post("/api/login", json={"email": "ann@example.com", "password": password})
    assert response.status_code == 200, response.text
    body: dict[str, str] = response.json()
    return body


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_tokens_from_before_a_password_change_are_refused(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    await create_user(app, email="ann@example.com")
    here, elsewhere = await _sign_in(client), await _sign_in(client)
    # A list page read (and cached) with the old token before the change.
    assert (await client.get("/api/products", headers=_bearer(elsewhere["token"]))).status_code == 200
    assert (await client.get("/api/products", headers=_bearer(elsewhere["token"]))).status_code == 200

    changed = await client.post(
        "/api/me/password",
        json={"currentPassword": DEFAULT_PASSWORD, "newPassword": NEW_PASSWORD},
        headers=_bearer(here["token"]),
    )

    assert changed.status_code == 204
    for old in (here["token"], elsewhere["token"]):
        assert_error(await client.get("/api/me", headers=_bearer(old)), 401, "AUTH_TOKEN_INVALID")
        assert_error(await client.get("/api/products", headers=_bearer(old)), 401, "AUTH_TOKEN_INVALID")
    # The session that changed it goes on with a refreshed token; a new sign-in works too.
    refreshed = await client.post("/api/token/refresh", json={"refreshToken": here["refreshToken"]})
    assert (await client.get("/api/me", headers=_bearer(refreshed.json()["token"]))).status_code == 200
    fresh = await _sign_in(client, NEW_PASSWORD)
    assert (await client.get("/api/products", headers=_bearer(fresh["token"]))).status_code == 200
