from __future__ import annotations

from collections.abc import Awaitable, Callable

import httpx
import pytest
from fastapi import FastAPI

from app.models import User
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error
from tests.users.test_me import USER_FIELDS


async def test_admin_gets_any_user(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = await create_admin(app)
    user = await create_supplier(app, name="Sam", country="NL")

    response = await client.get(f"/api/users/{user.id}", headers=auth_headers(app, admin))

    assert response.status_code == 200
    body = response.json()
    assert set(body) == USER_FIELDS
    assert (body["id"], body["name"], body["country"]) == (user.id, "Sam", "NL")
    assert body["roles"] == ["ROLE_USER", "ROLE_SUPPLIER"]


async def test_admin_gets_404_for_an_unknown_user(app: FastAPI, client: httpx.AsyncClient) -> None:
    headers = auth_headers(app, await create_admin(app))

    assert_error(await client.get("/api/users/999999", headers=headers), 404, "NOT_FOUND")
    assert_error(
        await client.patch("/api/users/999999", headers=headers, json={"name": "x"}), 404, "NOT_FOUND"
    )
    assert_error(await client.delete("/api/users/999999", headers=headers), 404, "NOT_FOUND")


# --- who may do what -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "body"), [("GET", None), ("PATCH", {"name": "Mallory"}), ("DELETE", None)]
)
@pytest.mark.parametrize("caller_kind", ["user", "supplier"])
async def test_nobody_but_an_admin_touches_another_user(
    app: FastAPI, client: httpx.AsyncClient, method: str, body: dict[str, str] | None, caller_kind: str
) -> None:
    caller = await (create_user(app) if caller_kind == "user" else create_supplier(app))
    other = await create_user(app, name="Bob")

    for target in (other.id, 999999):  # existing or not: the same 403, nothing revealed
        response = await client.request(
            method, f"/api/users/{target}", headers=auth_headers(app, caller), json=body
        )
        assert_error(response, 403, "FORBIDDEN")
    admin = await create_admin(app)
    assert (await client.get(f"/api/users/{other.id}", headers=auth_headers(app, admin))).json()[
        "name"
    ] == "Bob"


async def test_a_user_may_not_delete_themselves_through_the_admin_path(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app)

    assert_error(
        await client.delete(f"/api/users/{user.id}", headers=auth_headers(app, user)), 403, "FORBIDDEN"
    )


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/api/users", None),
        ("GET", "/api/admin/users", None),
        ("POST", "/api/users", {"email": "n@example.com", "password": "long enough", "name": "N"}),
    ],
)
async def test_lists_and_create_are_admin_only(
    app: FastAPI, client: httpx.AsyncClient, method: str, path: str, body: dict[str, str] | None
) -> None:
    for caller in (await create_user(app), await create_supplier(app)):
        response = await client.request(method, path, headers=auth_headers(app, caller), json=body)
        assert_error(response, 403, "FORBIDDEN")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/users"),
        ("GET", "/api/admin/users"),
        ("POST", "/api/users"),
        ("GET", "/api/users/1"),
        ("PATCH", "/api/users/1"),
        ("DELETE", "/api/users/1"),
        ("POST", "/api/user/profile-picture"),
        ("GET", f"/api/user/profile-picture/{'a' * 32}.png"),
    ],
)
async def test_every_users_endpoint_needs_a_token(client: httpx.AsyncClient, method: str, path: str) -> None:
    response = await client.request(method, path)

    assert_error(response, 401, "AUTH_REQUIRED")


# --- create ------------------------------------------------------------------------------------------


async def test_admin_creates_a_user(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin_headers = auth_headers(app, await create_admin(app))

    response = await client.post(
        "/api/users",
        headers=admin_headers,
        json={
            "email": " New@Example.com ",
            "password": "long enough",
            "name": "New",
            "roles": ["ROLE_SUPPLIER"],
        },
    )

    assert response.status_code == 201
    body = response.json()
    assert set(body) == USER_FIELDS
    assert body["email"] == "new@example.com" and body["roles"] == ["ROLE_USER", "ROLE_SUPPLIER"]
    assert response.headers["location"] == f"/api/users/{body['id']}"
    assert (await client.get(response.headers["location"], headers=admin_headers)).json() == body
    login = await client.post("/api/login", json={"email": "new@example.com", "password": "long enough"})
    assert login.status_code == 200


async def test_created_user_roles_default_to_role_user(app: FastAPI, client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/users",
        headers=auth_headers(app, await create_admin(app)),
        json={"email": "n@example.com", "password": "long enough", "name": "N"},
    )

    assert response.status_code == 201 and response.json()["roles"] == ["ROLE_USER"]


async def test_create_refuses_a_taken_email(app: FastAPI, client: httpx.AsyncClient) -> None:
    await create_user(app, email="ann@example.com")

    response = await client.post(
        "/api/users",
        headers=auth_headers(app, await create_admin(app)),
        json={"email": "ANN@example.com", "password": "long enough", "name": "Ann 2"},
    )

    assert_error(response, 409, "EMAIL_TAKEN")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"password": "long enough", "name": "N"}, "email"),
        ({"email": "not-an-email", "password": "long enough", "name": "N"}, "email"),
        ({"email": "n@example.com*", "password": "long enough", "name": "N"}, "email"),  # not a DNS name
        ({"email": "n@-example.com", "password": "long enough", "name": "N"}, "email"),
        ({"email": "n@example.com", "password": "short", "name": "N"}, "password"),
        ({"email": "n@example.com", "password": "long enough"}, "name"),
        (
            {"email": "n@example.com", "password": "long enough", "name": "N", "roles": ["ROLE_ROOT"]},
            "roles.0",
        ),
        ({"email": "n@example.com", "password": "long enough", "name": "N", "roles": "ROLE_ADMIN"}, "roles"),
        ({"email": "n@example.com", "password": "long enough", "name": "N", "city": "Lyon"}, "city"),
    ],
)
async def test_create_validates_its_body(
    app: FastAPI, client: httpx.AsyncClient, body: dict[str, object], field: str
) -> None:
    response = await client.post("/api/users", headers=auth_headers(app, await create_admin(app)), json=body)

    assert field in assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]


# --- update ------------------------------------------------------------------------------------------


async def test_admin_patches_profile_roles_and_email(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin_headers = auth_headers(app, await create_admin(app))
    user = await create_user(app, name="Ann", city="Lyon")

    response = await client.patch(
        f"/api/users/{user.id}",
        headers=admin_headers,
        json={"name": "Ann B", "roles": ["ROLE_SUPPLIER"], "email": "Ann.B@example.com"},
    )

    assert response.status_code == 200
    body = response.json()
    assert set(body) == USER_FIELDS
    assert (body["name"], body["email"], body["roles"], body["city"]) == (
        "Ann B",
        "ann.b@example.com",
        ["ROLE_USER", "ROLE_SUPPLIER"],
        "Lyon",
    )
    # Roles are read from the database on each request: the old token now carries the new role.
    me = await client.get("/api/me", headers=auth_headers(app, user))
    assert me.json()["roles"] == ["ROLE_USER", "ROLE_SUPPLIER"]


async def test_admin_may_keep_the_same_email_but_not_take_another(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    admin_headers = auth_headers(app, await create_admin(app))
    user = await create_user(app, email="ann@example.com")
    await create_user(app, email="bob@example.com")

    same = await client.patch(
        f"/api/users/{user.id}", headers=admin_headers, json={"email": "ANN@example.com"}
    )
    taken = await client.patch(
        f"/api/users/{user.id}", headers=admin_headers, json={"email": "Bob@example.com"}
    )

    assert same.status_code == 200
    assert_error(taken, 409, "EMAIL_TAKEN")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"roles": ["ROLE_GOD"]}, "roles.0"),
        ({"roles": None}, "roles"),
        ({"email": "nope"}, "email"),
        ({"x": 1}, "x"),
    ],
)
async def test_admin_patch_validates(
    app: FastAPI, client: httpx.AsyncClient, body: dict[str, object], field: str
) -> None:
    user = await create_user(app)

    response = await client.patch(
        f"/api/users/{user.id}", headers=auth_headers(app, await create_admin(app)), json=body
    )

    assert field in assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]


@pytest.mark.parametrize("make_caller", [create_user, create_supplier])
async def test_only_admins_patch_users_by_id_own_id_included(
    app: FastAPI, client: httpx.AsyncClient, make_caller: Callable[..., Awaitable[User]]
) -> None:
    caller = await make_caller(app, email="ann@example.com")
    other = await create_user(app, email="bob@example.com")
    headers = auth_headers(app, caller)
    before = (await client.get("/api/me", headers=headers)).json()

    own = await client.patch(f"/api/users/{caller.id}", headers=headers, json={"city": "Paris"})
    someone_else = await client.patch(f"/api/users/{other.id}", headers=headers, json={"city": "Paris"})
    nobody = await client.patch("/api/users/999999", headers=headers, json={"city": "Paris"})
    bad_body = await client.patch(f"/api/users/{caller.id}", headers=headers, json={"roles": ["ROLE_ADMIN"]})

    for response in (own, someone_else, nobody, bad_body):
        assert_error(response, 403, "FORBIDDEN")
    assert (await client.get("/api/me", headers=headers)).json() == before
    assert (await client.patch("/api/me", headers=headers, json={"city": "Paris"})).json()["city"] == "Paris"


# --- delete ----------------------------------------------------------------------------------------


async def test_admin_deletes_another_user(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin_headers = auth_headers(app, await create_admin(app))
    user: User = await create_user(app)

    response = await client.delete(f"/api/users/{user.id}", headers=admin_headers)

    assert response.status_code == 204 and response.content == b""
    assert_error(await client.get(f"/api/users/{user.id}", headers=admin_headers), 404, "NOT_FOUND")
    assert_error(await client.get("/api/me", headers=auth_headers(app, user)), 401, "AUTH_TOKEN_INVALID")
