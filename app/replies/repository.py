"""Saved replies as stored. Who may read or change them is decided before (app.access.organizations, the
service); these statements read and write what they are told."""

from __future__ import annotations

from sqlalchemy import func, select

from app.core.repository import Repository
from app.models import Organization, SavedReply


class ReplyRepository(Repository):
    async def organization_exists(self, organization_id: int) -> bool:
        found = await self.session.scalar(select(Organization.id).where(Organization.id == organization_id))
        return found is not None

    async def page(
        self, organization_id: int, limit: int, offset: int, after_id: int | None
    ) -> tuple[list[SavedReply], int]:
        """The organisation's replies, oldest first; `after_id`: those after it (a cursor's key). Two
        statements, whatever the page size."""
        where = [SavedReply.organization_id == organization_id]
        count = select(func.count()).select_from(SavedReply).where(*where)
        total = int(await self.session.scalar(count) or 0)
        if after_id is not None:
            where.append(SavedReply.id > after_id)
        query = select(SavedReply).where(*where).order_by(SavedReply.id).limit(limit).offset(offset)
        return list(await self.session.scalars(query)), total

    async def get(self, organization_id: int, reply_id: int) -> SavedReply | None:
        statement = select(SavedReply).where(
            SavedReply.id == reply_id, SavedReply.organization_id == organization_id
        )
        return (await self.session.scalars(statement)).one_or_none()

    async def add(self, organization_id: int, title: str, body: str) -> SavedReply:
        reply = SavedReply(organization_id=organization_id, title=title, body=body)
        self.session.add(reply)
        await self.session.flush()
        return reply

    async def delete(self, reply: SavedReply) -> None:
        await self.session.delete(reply)
        await self.session.flush()
