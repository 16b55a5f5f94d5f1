"""Helpers of the messages tests: what a send or a read wrote (messages, events, outbox rows), a claim's
read state as each participant lists it, and a mark as read at a known time."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.core.clock import frozen_time
from app.models import Event, Message, OutboxItem
from tests.factories.claims import Cast
from tests.factories.users import auth_headers

# Near the real time: access tokens are checked against the wall clock too.
SENT_AT = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=10)
SENT_ISO = SENT_AT.isoformat()
SENT_Z = SENT_AT.strftime("%Y-%m-%dT%H:%M:%SZ")
READ_AT = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=5)


async def events(app: FastAPI) -> list[tuple[str, dict[str, Any]]]:
    """Every event written, oldest first: (topic, payload)."""
    async with app.state.sessionmaker() as session:
        rows = await session.scalars(select(Event).order_by(Event.id))
        return [(row.topic, json.loads(row.payload)) for row in rows]


async def outbox(app: FastAPI) -> list[tuple[str, dict[str, object]]]:
    """Every outbox row as (kind, payload), in a stable order."""
    async with app.state.sessionmaker() as session:
        rows = await session.scalars(select(OutboxItem).order_by(OutboxItem.id))
        return sorted(
            ((row.kind, row.payload) for row in rows), key=lambda item: (item[0], sorted(item[1].items()))
        )


async def stored_messages(app: FastAPI) -> list[Message]:
    async with app.state.sessionmaker() as session:
        return list(await session.scalars(select(Message).order_by(Message.id)))


async def read_state_seen_by(
    app: FastAPI, client: httpx.AsyncClient, cast: Cast, who: str
) -> dict[str, tuple[bool, Any]]:
    """The claim's messages as `who` of the cast lists them: text -> (isRead, readAt)."""
    response = await client.get(
        f"/api/claims/{cast.claim.id}/messages", headers=auth_headers(app, getattr(cast, who))
    )
    assert response.status_code == 200, response.text
    return {item["message"]: (item["isRead"], item["readAt"]) for item in response.json()}


async def mark_read_as(app: FastAPI, client: httpx.AsyncClient, cast: Cast, who: str) -> dict[str, Any]:
    """`POST .../messages/read` as `who` of the cast, at READ_AT; answers the body."""
    headers = auth_headers(app, getattr(cast, who))
    with frozen_time(READ_AT):
        response = await client.post(f"/api/claims/{cast.claim.id}/messages/read", headers=headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body
