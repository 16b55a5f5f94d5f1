"""`GET /api/messages`: every message for admins, always paged, with claimId, senderId and unread."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.claims import claim_cast, create_message, mark_read_by
from tests.factories.users import auth_headers
from tests.helpers import assert_error


async def test_admin_list_filters(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    other = await claim_cast(app)
    question = await create_message(app, cast.claim, cast.customer, "question")
    answer = await create_message(app, cast.claim, cast.supplier, "answer")
    elsewhere = await create_message(app, other.claim, other.customer, "elsewhere")
    await mark_read_by(app, question, cast.supplier)  # read by its recipient
    await mark_read_by(app, answer, cast.admin)  # an admin looking on is not a recipient
    headers = auth_headers(app, cast.admin)

    async def ids(query: str = "") -> list[str]:
        response = await client.get(f"/api/messages{query}", headers=headers)
        assert response.status_code == 200, response.text
        return [item["id"] for item in response.json()["data"]]

    assert await ids() == [str(elsewhere.id), str(answer.id), str(question.id)]
    assert await ids(f"?claimId={cast.claim.id}") == [str(answer.id), str(question.id)]
    assert await ids(f"?senderId={cast.supplier.id}") == [str(answer.id)]
    assert await ids("?unread=true") == [str(elsewhere.id), str(answer.id)]
    assert await ids(f"?unread=false&claimId={cast.claim.id}") == [str(question.id)]
    page = (await client.get("/api/messages?limit=2&page=2", headers=headers)).json()
    assert [item["id"] for item in page["data"]] == [str(question.id)]
    assert page["meta"]["total"] == 3
    first = (await client.get(f"/api/messages?senderId={cast.customer.id}", headers=headers)).json()
    [item] = first["data"]
    assert item["claimId"] == cast.claim.id and item["isRead"] is True and item["readAt"].endswith("+00:00")
    assert first["links"]["first"] == f"/api/messages?senderId={cast.customer.id}&page=1&limit=20"


@pytest.mark.parametrize("query", ["claimId=abc", "senderId=0", "unread=perhaps", "page=0", "limit=500"])
async def test_admin_list_rejects_bad_queries(app: FastAPI, client: httpx.AsyncClient, query: str) -> None:
    cast = await claim_cast(app)
    response = await client.get(f"/api/messages?{query}", headers=auth_headers(app, cast.admin))
    assert response.status_code == 400
    assert response.json()["code"].startswith("VALIDATION_")


async def test_admin_list_is_for_admins(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    for user in (cast.customer, cast.supplier):
        assert_error(await client.get("/api/messages", headers=auth_headers(app, user)), 403, "FORBIDDEN")
    assert_error(await client.get("/api/messages"), 401, "AUTH_REQUIRED")
