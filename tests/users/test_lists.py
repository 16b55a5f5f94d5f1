from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.clock import frozen_time
from app.models import User
from app.pagecache.cache import invalidate
from app.pagecache.scopes import USERS_ALL
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error, count_queries

LIST_FIELDS = {
    "id",
    "email",
    "name",
    "roles",
    "notificationsEnabled",
    "emailNotificationsEnabled",
    "createdAt",
}
START = datetime(2026, 1, 15, 9, 0, tzinfo=UTC)


async def _people(app: FastAPI) -> dict[str, User]:
    """Created a minute apart, so newest first is a known order."""
    people: dict[str, User] = {}
    makers = [
        ("admin", lambda: create_admin(app, name="Root", email="root@example.com")),
        ("ann", lambda: create_user(app, name="Ann Smith", email="ann@example.com")),
        ("bob", lambda: create_supplier(app, name="Bob Jones", email="bob@acme.test")),
        ("cy", lambda: create_user(app, name="Cy", email="cy.SMITHERS@example.com")),
    ]
    for minute, (key, make) in enumerate(makers):
        with frozen_time(START + timedelta(minutes=minute)):
            people[key] = await make()
    return people


async def test_users_list_answers_data_and_the_4_5_meta(app: FastAPI, client: httpx.AsyncClient) -> None:
    people = await _people(app)

    response = await client.get("/api/users", headers=auth_headers(app, people["admin"]))

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"data", "meta"}
    assert body["meta"] == {
        "currentPage": 1,
        "totalPages": 1,
        "totalItems": 4,
        "itemsPerPage": 20,
        "next_cursor": None,
    }
    assert [item["id"] for item in body["data"]] == [people[k].id for k in ("cy", "bob", "ann", "admin")]
    assert all(set(item) == LIST_FIELDS for item in body["data"])
    assert body["data"][1] == {
        "id": people["bob"].id,
        "email": "bob@acme.test",
        "name": "Bob Jones",
        "roles": ["ROLE_USER", "ROLE_SUPPLIER"],
        "notificationsEnabled": True,
        "emailNotificationsEnabled": True,
        "createdAt": "2026-01-15T09:02:00+00:00",
    }


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("search=smith", ["cy", "ann"]),  # name or email, any case
        ("search=ACME", ["bob"]),
        ("search=%25", []),  # LIKE wildcards are plain characters
        ("search=_", []),
        ("search=%20%20", ["cy", "bob", "ann", "admin"]),  # blank means no filter
        ("role=ROLE_USER", ["cy", "bob", "ann", "admin"]),
        ("role=ROLE_SUPPLIER", ["bob"]),  # as stored: the admin is not listed as a supplier
        ("role=ROLE_ADMIN", ["admin"]),
        ("role=ROLE_USER&search=smith", ["cy", "ann"]),
        ("role=ROLE_SUPPLIER&search=smith", []),
    ],
)
async def test_users_list_filters(
    app: FastAPI, client: httpx.AsyncClient, query: str, expected: list[str]
) -> None:
    people = await _people(app)

    for path in ("/api/users", "/api/admin/users"):
        body = (await client.get(f"{path}?{query}", headers=auth_headers(app, people["admin"]))).json()
        assert [item["id"] for item in body["data"]] == [people[k].id for k in expected], path


async def test_users_list_refuses_an_unknown_role(app: FastAPI, client: httpx.AsyncClient) -> None:
    headers = auth_headers(app, await create_admin(app))

    for path in ("/api/users", "/api/admin/users"):
        error = assert_error(
            await client.get(f"{path}?role=ROLE_ROOT", headers=headers), 400, "VALIDATION_FAILED"
        )
        assert "role" in error["details"]["fields"]


async def test_users_list_pages(app: FastAPI, client: httpx.AsyncClient) -> None:
    people = await _people(app)
    headers = auth_headers(app, people["admin"])

    second = (await client.get("/api/users?page=2&limit=3", headers=headers)).json()
    past_end = (await client.get("/api/users?page=9&limit=3", headers=headers)).json()

    assert second["meta"] == {
        "currentPage": 2,
        "totalPages": 2,
        "totalItems": 4,
        "itemsPerPage": 3,
        "next_cursor": None,
    }
    assert [item["id"] for item in second["data"]] == [people["admin"].id]
    assert past_end == {
        "data": [],
        "meta": {
            "currentPage": 9,
            "totalPages": 2,
            "totalItems": 4,
            "itemsPerPage": 3,
            "next_cursor": None,
        },
    }
    empty = (await client.get("/api/users?search=nobody", headers=headers)).json()
    assert empty["meta"] == {
        "currentPage": 1,
        "totalPages": 1,
        "totalItems": 0,
        "itemsPerPage": 20,
        "next_cursor": None,
    }


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("page=0", "VALIDATION_INVALID_PAGE"),
        ("page=x", "VALIDATION_INVALID_PAGE"),
        ("limit=0", "VALIDATION_INVALID_LIMIT"),
        ("limit=1.5", "VALIDATION_INVALID_LIMIT"),
        ("limit=4%1F", "VALIDATION_INVALID_LIMIT"),  # int() would take it: U+001F is whitespace to Python
        ("page=%D9%A4", "VALIDATION_INVALID_PAGE"),  # an Arabic-Indic four
        ("limit=101", "VALIDATION_LIMIT_EXCEEDED"),
    ],
)
async def test_users_list_validates_page_and_limit(
    app: FastAPI, client: httpx.AsyncClient, query: str, code: str
) -> None:
    headers = auth_headers(app, await create_admin(app))

    for path in ("/api/users", "/api/admin/users"):
        body = assert_error(await client.get(f"{path}?{query}", headers=headers), 400, code)
        if code == "VALIDATION_LIMIT_EXCEEDED":
            assert body["details"] == {"max_limit": 100, "requested": 101}


async def test_admin_users_answers_the_8_1_envelope(app: FastAPI, client: httpx.AsyncClient) -> None:
    people = await _people(app)

    response = await client.get(
        "/api/admin/users?search=example&page=2&limit=1", headers=auth_headers(app, people["admin"])
    )

    assert response.status_code == 200
    body = response.json()
    assert isinstance(body["meta"].pop("next_cursor"), str)  # a page follows
    assert body["meta"] == {"current_page": 2, "per_page": 1, "total": 3, "last_page": 3, "from": 2, "to": 2}
    assert body["links"] == {
        "first": "/api/admin/users?search=example&page=1&limit=1",
        "last": "/api/admin/users?search=example&page=3&limit=1",
        "prev": "/api/admin/users?search=example&page=1&limit=1",
        "next": "/api/admin/users?search=example&page=3&limit=1",
    }
    assert [item["id"] for item in body["data"]] == [people["ann"].id]
    assert set(body["data"][0]) == LIST_FIELDS


async def test_admin_users_defaults_and_empty_pages(app: FastAPI, client: httpx.AsyncClient) -> None:
    headers = auth_headers(app, await create_admin(app))

    body = (await client.get("/api/admin/users?page=5", headers=headers)).json()

    assert body["data"] == []
    assert body["meta"] == {
        "current_page": 5,
        "per_page": 20,
        "total": 1,
        "last_page": 1,
        "from": None,
        "to": None,
        "next_cursor": None,
    }
    assert body["links"]["next"] is None and body["links"]["prev"] == "/api/admin/users?page=4&limit=20"


async def _bulk_users(sessionmaker: async_sessionmaker[AsyncSession], count: int) -> None:
    async with sessionmaker() as session, session.begin():
        session.add_all(
            User(email=f"bulk{n}@example.com", name=f"Bulk {n}", password_hash="x", roles=["ROLE_USER"])
            for n in range(count)
        )
        invalidate(session, USERS_ALL)  # as every user write does


@pytest.mark.parametrize("path", ["/api/users?limit=100", "/api/admin/users?limit=100&search=example"])
async def test_user_lists_run_the_same_queries_for_1_and_60_users(
    app: FastAPI, client: httpx.AsyncClient, sessionmaker: async_sessionmaker[AsyncSession], path: str
) -> None:
    headers = auth_headers(app, await create_admin(app))
    with count_queries(app) as few:
        small = await client.get(path, headers=headers)
    await _bulk_users(sessionmaker, 59)
    with count_queries(app) as many:
        large = await client.get(path, headers=headers)

    assert len(small.json()["data"]) == 1 and len(large.json()["data"]) == 60
    assert len(few) == len(many) <= 4  # caller, cache version, count, page


async def test_user_lists_are_cached_and_every_user_write_shows_at_once(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    admin = await create_admin(app)
    user = await create_user(app, name="Ann")
    headers = auth_headers(app, admin)

    async def names(path: str = "/api/users") -> list[str]:
        return [item["name"] for item in (await client.get(path, headers=headers)).json()["data"]]

    assert await names() == ["Ann", admin.name] and await names("/api/admin/users") == ["Ann", admin.name]
    with count_queries(app) as cached:
        await names()
    # One statement (the caller's roles and the cache version), answered before routing: no page query.
    assert len(cached) == 1

    await client.patch("/api/me", headers=auth_headers(app, user), json={"name": "Ann B"})
    assert await names() == ["Ann B", admin.name] and await names("/api/admin/users") == ["Ann B", admin.name]
    await client.patch(f"/api/users/{user.id}", headers=headers, json={"name": "Ann C"})
    assert await names() == ["Ann C", admin.name]
    created = await client.post(
        "/api/users",
        headers=headers,
        json={"email": "d@example.com", "password": "long enough", "name": "Dee"},
    )
    assert created.status_code == 201
    assert await names() == ["Dee", "Ann C", admin.name]
    registered = await client.post(
        "/api/register", json={"email": "e@example.com", "password": "long enough", "name": "Eve"}
    )
    assert registered.status_code == 201
    assert await names("/api/admin/users") == ["Eve", "Dee", "Ann C", admin.name]
    await client.delete(f"/api/users/{user.id}", headers=headers)
    assert await names() == ["Eve", "Dee", admin.name]


async def test_a_write_outside_the_api_is_not_seen_until_invalidated(
    app: FastAPI, client: httpx.AsyncClient, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    """Proves the page cache answers: a change that records no invalidation stays invisible."""
    admin = await create_admin(app, name="Root")
    headers = auth_headers(app, admin)
    await client.get("/api/users", headers=headers)
    async with sessionmaker() as session, session.begin():
        await session.execute(update(User).where(User.id == admin.id).values(name="Changed quietly"))

    stale = (await client.get("/api/users", headers=headers)).json()["data"][0]["name"]
    await client.patch("/api/me", headers=headers, json={"city": "Lyon"})
    fresh = (await client.get("/api/users", headers=headers)).json()["data"][0]["name"]

    assert (stale, fresh) == ("Root", "Changed quietly")
