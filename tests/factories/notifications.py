"""Outbox rows, recorded as the claims and messages services record them (through the triggers)."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import select

from app.models import Claim, Message, OutboxItem, User
from app.notifications import triggers


async def notify_message(app: FastAPI, message: Message, to: list[User]) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        sender = await session.get(User, message.sender_id) if message.sender_id else None
        await triggers.message_posted(session, message, sender, to)


async def notify_status(app: FastAPI, claim: Claim, to: list[User]) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        await triggers.status_changed(session, claim, "open", None, to)


async def outbox_rows(app: FastAPI, kind: str | None = None) -> list[OutboxItem]:
    async with app.state.sessionmaker() as session:
        statement = select(OutboxItem).order_by(OutboxItem.id)
        if kind is not None:
            statement = statement.where(OutboxItem.kind == kind)
        return list(await session.scalars(statement))
