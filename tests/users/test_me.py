from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error

USER_FIELDS = {
    "id",
    "email",
    "name",
    "street",
    "postalCode",
    "city",
    "country",
    "roles",
    "notificationsEnabled",
    "emailNotificationsEnabled",
    "profilePicture",
    "createdAt",
}


async def test_get_me_answers_the_single_user_object(app: FastAPI, client: httpx.AsyncClient) -> None:
    with frozen_time(datetime(2026, 1, 15, 9, 30, tzinfo=UTC)):
        user = await create_user(app, email="ann@example.com", name="Ann", city="Lyon")

    response = await client.get("/api/me", headers=auth_headers(app, user))

    assert response.status_code == 200
    assert response.json() == {
        "id": user.id,
        "email": "ann@example.com",
        "name": "Ann",
        "street": None,
        "postalCode": None,
        "city": "Lyon",
        "country": None,
        "roles": ["ROLE_USER"],
        "notificationsEnabled": True,
        "emailNotificationsEnabled": True,
        "profilePicture": None,
        "createdAt": "2026-01-15T09:30:00+00:00",
        "identities": [],  # the identity-provider accounts linked to it (tests/oidc)
    }


async def test_patch_me_changes_only_the_fields_sent(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app, name="Ann", street="1 Main St", city="Lyon")
    headers = auth_headers(app, user)

    response = await client.patch(
        "/api/me",
        headers=headers,
        json={"name": "  Ann B. ", "postalCode": "69001", "country": "FR", "notificationsEnabled": False},
    )

    assert response.status_code == 200
    body = response.json()
    assert set(body) == USER_FIELDS
    assert body["name"] == "Ann B."
    assert (body["street"], body["postalCode"], body["city"], body["country"]) == (
        "1 Main St",
        "69001",
        "Lyon",
        "FR",
    )
    assert body["notificationsEnabled"] is False and body["emailNotificationsEnabled"] is True
    assert (await client.get("/api/me", headers=headers)).json() == {**body, "identities": []}


async def test_a_text_longer_than_its_limit_as_sent_is_refused_even_if_it_fits_once_stripped(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """The document's maxLength counts what the client sends: 255 characters are a name, 256 are not,
    leading spaces included (they are stripped only from a text that is valid as sent)."""
    headers = auth_headers(app, await create_user(app, name="Ann"))

    padded = await client.patch("/api/me", headers=headers, json={"name": "  " + "x" * 254})
    fits = await client.patch("/api/me", headers=headers, json={"name": " " + "x" * 254})

    assert "name" in assert_error(padded, 400, "VALIDATION_FAILED")["details"]["fields"]
    assert fits.status_code == 200 and fits.json()["name"] == "x" * 254


async def test_patch_me_clears_address_fields_with_null_or_blank(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app, street="1 Main St", city="Lyon")

    response = await client.patch(
        "/api/me",
        headers=auth_headers(app, user),
        json={"street": None, "city": "  ", "emailNotificationsEnabled": False},
    )

    assert response.status_code == 200
    assert response.json()["street"] is None and response.json()["city"] is None
    assert response.json()["emailNotificationsEnabled"] is False


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"roles": ["ROLE_ADMIN"]}, "roles"),
        ({"email": "new@example.com"}, "email"),
        ({"password": "something-long"}, "password"),
        ({"profilePicture": "x.png"}, "profilePicture"),
        ({"id": 5}, "id"),
        ({"name": ""}, "name"),
        ({"name": None}, "name"),
        ({"name": "x" * 256}, "name"),
        ({"postalCode": "1" * 33}, "postalCode"),
        ({"notificationsEnabled": "yes"}, "notificationsEnabled"),
        ({"emailNotificationsEnabled": None}, "emailNotificationsEnabled"),
    ],
)
async def test_patch_me_refuses_other_fields_and_bad_values(
    app: FastAPI, client: httpx.AsyncClient, body: dict[str, object], field: str
) -> None:
    user = await create_user(app, name="Ann")
    headers = auth_headers(app, user)

    error = assert_error(await client.patch("/api/me", headers=headers, json=body), 400, "VALIDATION_FAILED")

    assert field in error["details"]["fields"]
    after = (await client.get("/api/me", headers=headers)).json()
    assert after["name"] == "Ann" and after["roles"] == ["ROLE_USER"]


async def test_patch_me_with_malformed_json(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    headers = {**auth_headers(app, user), "Content-Type": "application/json"}

    assert_error(await client.patch("/api/me", headers=headers, content=b"{not json"), 400, "MALFORMED_JSON")


@pytest.mark.parametrize(
    ("method", "path"), [("GET", "/api/me"), ("PATCH", "/api/me"), ("DELETE", "/api/me")]
)
async def test_me_needs_a_token(client: httpx.AsyncClient, method: str, path: str) -> None:
    response = await client.request(method, path, json={"name": "x"} if method == "PATCH" else None)

    assert_error(response, 401, "AUTH_REQUIRED")
    assert response.headers["www-authenticate"] == "Bearer"


async def test_delete_me_deletes_the_account(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    headers = auth_headers(app, user)

    response = await client.delete("/api/me", headers=headers)

    assert response.status_code == 204 and response.content == b""
    assert_error(await client.get("/api/me", headers=headers), 401, "AUTH_TOKEN_INVALID")
