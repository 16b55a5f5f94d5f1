"""The claim detail carries the newest 200 messages, oldest first among them, and says whether there are
older ones (contract 5); the messages API pages through all of them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI

from app.models import Message
from tests.factories.claims import Cast, claim_cast
from tests.factories.users import auth_headers

START = datetime(2026, 2, 1, 8, 0, tzinfo=UTC)


async def _messages(app: FastAPI, cast: Cast, count: int) -> None:
    """`count` messages, two a second (ties in time, ordered by id), in one transaction."""
    async with app.state.sessionmaker() as session, session.begin():
        session.add_all(
            Message(
                claim_id=cast.claim.id,
                sender_id=(cast.customer.id, cast.supplier.id)[n % 2],
                body=f"m{n}",
                created_at=START + timedelta(seconds=n // 2),
            )
            for n in range(count)
        )


@pytest.mark.parametrize(("count", "more"), [(0, False), (3, False), (200, False), (201, True), (450, True)])
async def test_the_detail_shows_the_newest_200_messages(
    app: FastAPI, client: httpx.AsyncClient, count: int, more: bool
) -> None:
    cast = await claim_cast(app)
    await _messages(app, cast, count)

    detail = (
        await client.get(f"/api/claims/{cast.claim.id}", headers=auth_headers(app, cast.customer))
    ).json()

    shown = [message["message"] for message in detail["messages"]]
    assert shown == [f"m{n}" for n in range(max(0, count - 200), count)]
    assert detail["hasMoreMessages"] is more


async def test_the_messages_api_pages_what_the_detail_leaves_out(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    await _messages(app, cast, 230)
    headers = auth_headers(app, cast.supplier)

    detail = (await client.get(f"/api/claims/{cast.claim.id}", headers=headers)).json()
    older = (await client.get(f"/api/claims/{cast.claim.id}/messages?limit=30", headers=headers)).json()

    assert [m["message"] for m in older["data"]] == [f"m{n}" for n in range(30)]
    assert older["meta"]["total"] == 230
    # The detail's ids are integers; the messages API's are numeric strings (contract 0).
    assert [str(m["id"]) for m in older["data"] + detail["messages"]] == [
        m["id"] for m in (await client.get(f"/api/claims/{cast.claim.id}/messages", headers=headers)).json()
    ]
