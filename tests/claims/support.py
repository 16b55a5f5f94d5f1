"""What several claims test modules read back: a claim's stored status with the events and outbox rows written
so far, and the statements one list request runs."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.models import Claim, Event, OutboxItem, User
from tests.factories.users import auth_headers
from tests.helpers import count_queries


async def stored_state(app: FastAPI, claim_id: int) -> tuple[str, list[Event], list[OutboxItem]]:
    """The claim's status as stored, and every event and outbox row, oldest first."""
    async with app.state.sessionmaker() as session:
        claim = await session.get(Claim, claim_id)
        assert claim is not None
        events = list(await session.scalars(select(Event).order_by(Event.id)))
        outbox = list(await session.scalars(select(OutboxItem).order_by(OutboxItem.id)))
        return claim.status, events, outbox


async def queries_of(app: FastAPI, client: httpx.AsyncClient, path: str, user: User) -> int:
    """How many statements `user`'s GET of `path` runs (it must answer 200)."""
    with count_queries(app) as statements:
        response = await client.get(path, headers=auth_headers(app, user))
    assert response.status_code == 200, response.text
    return len(statements)
