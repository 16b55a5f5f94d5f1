"""Outbox rows, recorded as the claims and messages services record them (the Notify steps of
app.changes.dispatch), to the recipients a test names."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fastapi import FastAPI
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.changes.consequences import Notify, Recording
from app.changes.dispatch import CONSEQUENCES
from app.changes.events import ClaimStatusChanged, MessagePosted
from app.models import Claim, Message, OutboxItem, User
from app.models.enums import ClaimStatus


async def notify_message(app: FastAPI, message: Message, to: list[User]) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        sender = await session.get(User, message.sender_id) if message.sender_id else None
        claim = await session.get(Claim, message.claim_id)
        await _notify(session, MessagePosted(message, claim, sender), to)  # type: ignore[arg-type]


async def notify_status(app: FastAPI, claim: Claim, to: list[User]) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        await _notify(session, ClaimStatusChanged(claim, ClaimStatus.OPEN, None, None), to)  # type: ignore[arg-type]


async def _notify(session: AsyncSession, change: Any, to: list[User]) -> None:
    async def recipients(_: Recording[Any]) -> list[User]:
        return to

    for step in CONSEQUENCES[type(change)]:
        if isinstance(step, Notify):
            await replace(step, to=recipients).apply(Recording(session, change))


async def outbox_rows(app: FastAPI, kind: str | None = None) -> list[OutboxItem]:
    async with app.state.sessionmaker() as session:
        statement = select(OutboxItem).order_by(OutboxItem.id)
        if kind is not None:
            statement = statement.where(OutboxItem.kind == kind)
        return list(await session.scalars(statement))
