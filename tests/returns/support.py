"""Helpers of the returns tests: a routed claim its agent took and moved to `in_progress`, and the issue
request."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from app.models import User
from tests.claims.routed import Routed, routed_claim
from tests.factories.users import auth_headers


async def claim_in_progress(app: FastAPI, client: httpx.AsyncClient) -> Routed:
    """A claim routed to "Acme Service", taken by its first agent and moved to `in_progress`."""
    cast = await routed_claim(app, client)
    moved = await client.post(
        f"{cast.path}/status", json={"status": "in_progress"}, headers=auth_headers(app, cast.agent)
    )
    assert moved.status_code == 200, moved.text
    return cast


async def issue(
    app: FastAPI, client: httpx.AsyncClient, cast: Routed, user: User, **body: Any
) -> httpx.Response:
    return await client.post(f"{cast.path}/rma", json=body, headers=auth_headers(app, user))
