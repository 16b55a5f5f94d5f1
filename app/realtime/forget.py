"""A deleted claim leaves the hub's history: its events are deleted with it, so no replay ever sends them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, String, cast, delete, literal, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Event


async def forget_claims(session: AsyncSession, claim_ids: Select[Any]) -> None:
    """Deletes every event of the claims `claim_ids` selects (call it before the claims are deleted)."""
    ids = claim_ids.subquery()
    topics = union_all(
        *(
            select(literal("claims/") + cast(ids.c[0], String) + literal(suffix))
            for suffix in ("/messages", "/status")
        )
    )
    await session.execute(delete(Event).where(Event.topic.in_(topics)))
