"""What the organisations tests do again and again: an admin's requests, an organisation made over HTTP,
and a member's request."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from app.models import User
from tests.factories.users import auth_headers

ADMIN_PATH = "/api/admin/organizations"


async def create(
    app: FastAPI, client: httpx.AsyncClient, admin: User, name: str = "Gaggia Service", **fields: Any
) -> httpx.Response:
    body = {"name": name, "brands": fields.pop("brands", []), **fields}
    return await client.post(ADMIN_PATH, json=body, headers=auth_headers(app, admin))


async def created_id(app: FastAPI, client: httpx.AsyncClient, admin: User, **fields: Any) -> int:
    response = await create(app, client, admin, **fields)
    assert response.status_code == 201, response.text
    organization_id: int = response.json()["id"]
    return organization_id


async def call(
    app: FastAPI, client: httpx.AsyncClient, user: User, method: str, path: str, body: Any = None
) -> httpx.Response:
    """`user`'s request (a JSON body when given)."""
    kwargs: dict[str, Any] = {} if body is None else {"json": body}
    return await client.request(method, path, headers=auth_headers(app, user), **kwargs)
