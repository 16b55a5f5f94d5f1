"""Saved replies as stored: one organisation's, oldest first, with their total; a reply is reached only
through its organisation."""

from __future__ import annotations

from fastapi import FastAPI

from app.replies.repository import ReplyRepository
from tests.factories.organizations import create_organization


async def test_replies_are_read_per_organization_oldest_first(app: FastAPI) -> None:
    acme = await create_organization(app, "Acme Service", ["Acme"])
    rival = await create_organization(app, "Rival Repairs", ["Rival"])
    async with app.state.sessionmaker() as session, session.begin():
        replies = ReplyRepository(session)
        first = await replies.add(acme.id, "One", "1")
        await replies.add(rival.id, "Theirs", "x")
        second = await replies.add(acme.id, "Two", "2")

        found, total = await replies.page(acme.id, 10, 0, None)
        assert total == 2 and [reply.id for reply in found] == [first.id, second.id]
        after, total = await replies.page(acme.id, 10, 0, first.id)
        assert total == 2 and [reply.id for reply in after] == [second.id]
        assert await replies.get(rival.id, first.id) is None
        assert await replies.organization_exists(acme.id) and not await replies.organization_exists(
            rival.id + 99
        )

        await replies.delete(first)
        assert await replies.get(acme.id, first.id) is None
