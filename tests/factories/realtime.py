"""Real-time events, published the way the service publishes them (a row, delivered after commit)."""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI
from sqlalchemy import func, select

from app.models import Event
from app.realtime.publishing import publish


async def publish_event(app: FastAPI, topic: str, payload: dict[str, Any]) -> tuple[int, str]:
    """Commits one event; answers its id and the stored JSON payload string."""
    async with app.state.sessionmaker() as session, session.begin():
        event = await publish(session, topic, payload)
    if not app.state.settings.database_url.startswith("postgresql"):
        return event.id, event.payload
    # On PostgreSQL the id is given at commit (app.realtime.publishing): read it back.
    async with app.state.sessionmaker() as session:
        newest = await session.scalar(select(func.max(Event.id)).where(Event.topic == topic))
    assert newest is not None
    return newest, event.payload


def new_message(claim_id: int, message_id: int, text: str = "Hello") -> dict[str, Any]:
    return {
        "type": "new_message",
        "message": {
            "id": str(message_id),
            "senderId": "1",
            "senderName": "Ann",
            "message": text,
            "createdAt": "2026-01-15T10:00:00Z",
        },
    }


def stored(payload: dict[str, Any]) -> str:
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
