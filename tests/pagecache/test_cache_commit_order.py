"""A cached page is never served after a change to its data has committed, whatever order concurrent
writers commit in (contract 16.2). PostgreSQL only: SQLite's writers cannot overlap."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.models import Message
from app.pagecache.cache import invalidate
from app.pagecache.scopes import MESSAGES_ALL, messages_of
from tests.factories.claims import claim_cast
from tests.factories.users import auth_headers

pytestmark = pytest.mark.postgres_only


async def test_a_page_read_between_out_of_order_commits_is_not_stale(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    customer = auth_headers(app, cast.customer)
    url = f"/api/claims/{cast.claim.id}/messages"

    async def texts() -> list[str]:
        response = await client.get(url, headers=customer)
        assert response.status_code == 200
        return [m["message"] for m in response.json()]

    assert await texts() == []
    async with app.state.sessionmaker() as slow:
        await slow.begin()
        # Written first (its invalidation row too), committed last.
        slow.add(Message(claim_id=cast.claim.id, sender_id=cast.supplier.id, body="written first"))
        invalidate(slow, messages_of(cast.claim.id), MESSAGES_ALL)
        await slow.flush()
        posted = await client.post(url, json={"message": "committed first"}, headers=customer)
        assert posted.status_code == 201
        assert await texts() == ["committed first"]  # cached now
        await slow.commit()
    assert sorted(await texts()) == ["committed first", "written first"]
