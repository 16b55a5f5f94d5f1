"""The messages routes' own request dependencies (app/messages/dependencies.py): the admin list's filter,
`claimId`, `senderId` and `unread`, refused when they are not what they say (with the paging parameters)."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.messages.dependencies import message_filter
from app.messages.repository import MessageFilter
from tests.factories.claims import claim_cast
from tests.factories.users import auth_headers


async def test_the_query_parameters_make_the_filter() -> None:
    assert await message_filter() == MessageFilter()
    assert await message_filter(claim_id=3, sender_id=4, unread=False) == MessageFilter(3, 4, False)


@pytest.mark.parametrize("query", ["claimId=abc", "senderId=0", "unread=perhaps", "page=0", "limit=500"])
async def test_admin_list_rejects_bad_queries(app: FastAPI, client: httpx.AsyncClient, query: str) -> None:
    cast = await claim_cast(app)
    response = await client.get(f"/api/messages?{query}", headers=auth_headers(app, cast.admin))
    assert response.status_code == 400
    assert response.json()["code"].startswith("VALIDATION_")
