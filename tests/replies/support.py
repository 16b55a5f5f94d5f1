"""Helpers of the saved replies tests: a staffed organisation and its replies, as its managers write them."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from app.models import Organization, User
from tests.factories.users import auth_headers


def replies_path(organization: Organization | int) -> str:
    organization_id = organization if isinstance(organization, int) else organization.id
    return f"/api/organizations/{organization_id}/replies"


async def save_reply(
    app: FastAPI,
    client: httpx.AsyncClient,
    manager: User,
    organization: Organization,
    body: str,
    title: str = "Reply",
) -> dict[str, Any]:
    response = await client.post(
        replies_path(organization), json={"title": title, "body": body}, headers=auth_headers(app, manager)
    )
    assert response.status_code == 201, response.text
    saved: dict[str, Any] = response.json()
    return saved
