"""The auth routes (app/auth/router.py): what login answers (tokens, user, hub cookie), access tokens that
are refused, refresh-token rotation and reuse, logout, registration, and the login throttles."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta

import httpx
import jwt
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from app.core.security import create_access_token
from tests.auth.support import login
from tests.conftest import TEST_SECRET
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error


async def test_login_answers_tokens_user_and_hub_cookie(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app, email="ann@example.com", name="Ann")

    response = await login(client, "ANN@Example.com")

    assert response.status_code == 200
    body = response.json()
    assert body["user"] == {"id": user.id, "email": "ann@example.com", "name": "Ann", "roles": ["ROLE_USER"]}
    claims = jwt.decode(body["token"], TEST_SECRET, algorithms=["HS256"])
    assert claims["sub"] == str(user.id) and claims["roles"] == ["ROLE_USER"]
    assert {"iat", "exp", "jti"} <= set(claims)
    assert claims["exp"] - claims["iat"] == 3600
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"mercureAuthorization={body['token']};")
    assert "HttpOnly" in cookie and "Path=/" in cookie and "SameSite=lax" in cookie
    me = await client.get("/api/me", headers={"Authorization": f"Bearer {body['token']}"})
    assert me.json()["id"] == user.id


async def test_login_body_is_validated(client: httpx.AsyncClient) -> None:
    body = assert_error(
        await client.post("/api/login", json={"email": "a@example.com"}), 400, "VALIDATION_FAILED"
    )
    assert body["details"] == {"fields": {"password": "Field required"}}


def _forge(payload: dict[str, object], header: dict[str, object]) -> str:
    def part(data: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    return f"{part(header)}.{part(payload)}."


@pytest.mark.parametrize(
    ("make_token", "code"),
    [
        (lambda uid: "garbage", "AUTH_TOKEN_INVALID"),
        (
            lambda uid: _forge({"sub": str(uid), "exp": 4_000_000_000, "iat": 1}, {"alg": "none"}),
            "AUTH_TOKEN_INVALID",
        ),
        (
            lambda uid: jwt.encode(
                {"sub": str(uid), "exp": 4_000_000_000, "iat": 1}, TEST_SECRET, algorithm="HS512"
            ),
            "AUTH_TOKEN_INVALID",
        ),
        (
            lambda uid: jwt.encode(
                {"sub": str(uid), "exp": 4_000_000_000, "iat": 1},
                "another-secret-of-enough-length-0123456789",
                algorithm="HS256",
            ),
            "AUTH_TOKEN_INVALID",
        ),
        (
            lambda uid: jwt.encode({"sub": str(uid), "iat": 1}, TEST_SECRET, algorithm="HS256"),
            "AUTH_TOKEN_INVALID",
        ),
        (
            lambda uid: jwt.encode({"exp": 4_000_000_000, "iat": 1}, TEST_SECRET, algorithm="HS256"),
            "AUTH_TOKEN_INVALID",
        ),
        (
            lambda uid: jwt.encode({"sub": str(uid), "exp": 1_000, "iat": 1}, TEST_SECRET, algorithm="HS256"),
            "AUTH_TOKEN_EXPIRED",
        ),
    ],
    ids=["garbage", "alg-none", "hs512", "wrong-key", "no-exp", "no-sub", "expired"],
)
async def test_bad_tokens_are_refused(app: FastAPI, client: httpx.AsyncClient, make_token, code: str) -> None:  # type: ignore[no-untyped-def]
    user = await create_user(app)

    response = await client.get("/api/me", headers={"Authorization": f"Bearer {make_token(user.id)}"})

    assert_error(response, 401, code)
    assert response.headers["www-authenticate"] == "Bearer"


async def test_missing_token_and_deleted_user(app: FastAPI, client: httpx.AsyncClient) -> None:
    assert_error(await client.get("/api/me"), 401, "AUTH_REQUIRED")
    ghost = create_access_token(app.state.settings, 999_999, ["ROLE_USER"])
    assert_error(
        await client.get("/api/me", headers={"Authorization": f"Bearer {ghost}"}), 401, "AUTH_TOKEN_INVALID"
    )


async def test_token_expires_after_its_lifetime(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    headers = auth_headers(app, user)
    assert (await client.get("/api/me", headers=headers)).status_code == 200
    with frozen_time(datetime.now(UTC) + timedelta(seconds=3601)):
        assert_error(await client.get("/api/me", headers=headers), 401, "AUTH_TOKEN_EXPIRED")


async def test_refresh_rotates_and_reuse_revokes_the_family(app: FastAPI, client: httpx.AsyncClient) -> None:
    await create_user(app, email="ann@example.com")
    first = (await login(client, "ann@example.com")).json()["refreshToken"]

    rotated = await client.post("/api/token/refresh", json={"refreshToken": first})
    assert rotated.status_code == 200
    second = rotated.json()["refreshToken"]
    assert second != first and jwt.decode(rotated.json()["token"], TEST_SECRET, algorithms=["HS256"])

    # The spent token is refused, and its reuse ends the whole sign-in: the newer token dies too.
    assert_error(
        await client.post("/api/token/refresh", json={"refreshToken": first}), 401, "AUTH_TOKEN_INVALID"
    )
    assert_error(
        await client.post("/api/token/refresh", json={"refreshToken": second}), 401, "AUTH_TOKEN_INVALID"
    )


async def test_reuse_revokes_only_that_family(app: FastAPI, client: httpx.AsyncClient) -> None:
    await create_user(app, email="ann@example.com")
    phone = (await login(client, "ann@example.com")).json()["refreshToken"]
    laptop = (await login(client, "ann@example.com")).json()["refreshToken"]
    await client.post("/api/token/refresh", json={"refreshToken": phone})
    await client.post("/api/token/refresh", json={"refreshToken": phone})

    assert (await client.post("/api/token/refresh", json={"refreshToken": laptop})).status_code == 200


async def test_expired_refresh_token(app: FastAPI, client: httpx.AsyncClient) -> None:
    await create_user(app, email="ann@example.com")
    refresh = (await login(client, "ann@example.com")).json()["refreshToken"]
    with frozen_time(datetime.now(UTC) + timedelta(days=31)):
        response = await client.post("/api/token/refresh", json={"refreshToken": refresh})
    assert_error(response, 401, "AUTH_TOKEN_EXPIRED")


async def test_logout_revokes_the_refresh_token(app: FastAPI, client: httpx.AsyncClient) -> None:
    await create_user(app, email="ann@example.com")
    refresh = (await login(client, "ann@example.com")).json()["refreshToken"]

    response = await client.post("/api/logout", json={"refreshToken": refresh})

    assert response.status_code == 204
    assert 'mercureAuthorization=""' in response.headers["set-cookie"]
    assert_error(
        await client.post("/api/token/refresh", json={"refreshToken": refresh}), 401, "AUTH_TOKEN_INVALID"
    )


async def test_register_then_login(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/register", json={"email": " New@Example.com ", "password": "long enough", "name": "New"}
    )

    assert response.status_code == 201
    body = response.json()
    assert body["email"] == "new@example.com" and body["roles"] == ["ROLE_USER"]
    assert body["notificationsEnabled"] is True and body["emailNotificationsEnabled"] is True
    assert response.headers["location"] == f"/api/users/{body['id']}"
    assert "password" not in json.dumps(body).lower()
    assert (await login(client, "new@example.com", "long enough")).status_code == 200


async def test_register_refuses_taken_email_short_password_and_extra_fields(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    await create_user(app, email="ann@example.com")
    taken = await client.post(
        "/api/register", json={"email": "ANN@example.com", "password": "long enough", "name": "A"}
    )
    assert_error(taken, 409, "EMAIL_TAKEN")
    short = await client.post(
        "/api/register", json={"email": "b@example.com", "password": "short", "name": "B"}
    )
    assert "password" in assert_error(short, 400, "VALIDATION_FAILED")["details"]["fields"]  # type: ignore[index]
    bad_email = await client.post(
        "/api/register", json={"email": "nope", "password": "long enough", "name": "B"}
    )
    assert "email" in assert_error(bad_email, 400, "VALIDATION_FAILED")["details"]["fields"]  # type: ignore[index]
    extra = await client.post(
        "/api/register",
        json={"email": "c@example.com", "password": "long enough", "name": "C", "roles": ["ROLE_ADMIN"]},
    )
    assert assert_error(extra, 400, "VALIDATION_FAILED")["details"] == {"fields": {"roles": "unknown field"}}


async def test_throttles_an_email_after_five_failures(app: FastAPI, client: httpx.AsyncClient) -> None:
    await create_user(app, email="ann@example.com")
    await create_user(app, email="bob@example.com")
    for _ in range(5):
        assert (await login(client, "ann@example.com", "wrong password")).status_code == 401

    throttled = await login(client, "ann@example.com")  # even the right password

    assert_error(throttled, 429, "RATE_LIMITED")
    assert 290 <= int(throttled.headers["retry-after"]) <= 300
    assert (await login(client, "bob@example.com")).status_code == 200
    with frozen_time(datetime.now(UTC) + timedelta(seconds=301)):
        assert (await login(client, "ann@example.com")).status_code == 200


@pytest.mark.settings(login_max_failures_per_client=3)
async def test_throttles_a_client_across_emails(app: FastAPI, client: httpx.AsyncClient) -> None:
    await create_user(app, email="ann@example.com")
    for number in range(3):
        await login(client, f"guess{number}@example.com", "wrong password")

    assert_error(await login(client, "ann@example.com"), 429, "RATE_LIMITED")
