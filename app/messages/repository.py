"""Message reads: a claim's messages with the caller's read state, and the admin list. Each list is two
queries (rows with senders and read state joined, and the count), whatever its length."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends
from sqlalchemy import ColumnElement, and_, case, func, or_, select, type_coerce
from sqlalchemy.orm import aliased

from app.core.repository import Repository
from app.core.types import UtcDateTime
from app.models import Claim, Message, MessageRead, User

_COLUMNS = (
    Message.id,
    Message.claim_id,
    Message.sender_id,
    Message.body,
    Message.created_at,
    Message.attachment_name,
    Message.attachment_mime,
    Message.attachment_size,
    User.name.label("sender_name"),
    User.email.label("sender_email"),
    User.profile_picture.label("sender_picture"),
)


@dataclass(frozen=True)
class MessageFilter:
    claim_id: int | None = None
    sender_id: int | None = None
    unread: bool | None = None


def _first_read_by(readers: ColumnElement[bool]) -> Any:
    """When the message was first read by the readers `readers` selects (null when never)."""
    return (
        select(func.min(MessageRead.read_at))
        .where(MessageRead.message_id == Message.id, readers)
        .correlate(Message, Claim)
        .scalar_subquery()
    )


class MessageRepository(Repository):
    def _for_viewer(self, claim: Claim, viewer_id: int) -> Any:
        """A claim's messages as `viewer_id` sees them: `read_at` is the viewer's own read of a message
        they received, or the first read by another participant of a message they sent."""
        participants = [uid for uid in (claim.customer_id, claim.supplier_id) if uid and uid != viewer_id]
        mine = aliased(MessageRead)
        receipt = _first_read_by(MessageRead.user_id.in_(participants))
        read_at = case((Message.sender_id == viewer_id, receipt), else_=mine.read_at)
        return (
            select(*_COLUMNS, type_coerce(read_at, UtcDateTime()).label("read_at"))
            .outerjoin(User, User.id == Message.sender_id)
            .outerjoin(mine, and_(mine.message_id == Message.id, mine.user_id == viewer_id))
            .where(Message.claim_id == claim.id)
        )

    async def list_for_claim(
        self, claim: Claim, viewer_id: int, *, offset: int = 0, limit: int | None = None
    ) -> tuple[Sequence[Any], int]:
        """Oldest first; every message when `limit` is None."""
        statement = self._for_viewer(claim, viewer_id).order_by(Message.created_at, Message.id)
        rows = (await self.session.execute(statement.offset(offset).limit(limit))).all()
        if limit is None:
            return rows, len(rows)
        total = await self.session.scalar(
            select(func.count()).select_from(Message).where(Message.claim_id == claim.id)
        )
        return rows, total or 0

    async def one_for_claim(self, claim: Claim, viewer_id: int, message_id: int) -> Any:
        statement = self._for_viewer(claim, viewer_id).where(Message.id == message_id)
        return (await self.session.execute(statement)).first()

    async def attachment_of(self, claim_id: int, message_id: int) -> Message | None:
        """The message, if it is in this claim and carries an attachment."""
        return await self.session.scalar(
            select(Message).where(
                Message.id == message_id, Message.claim_id == claim_id, Message.attachment_key.is_not(None)
            )
        )

    async def list_all(self, where: MessageFilter, *, offset: int, limit: int) -> tuple[Sequence[Any], int]:
        """Every message (admin), newest first; `read_at` is the first read by a recipient."""
        recipient = and_(
            or_(MessageRead.user_id == Claim.customer_id, MessageRead.user_id == Claim.supplier_id),
            or_(Message.sender_id.is_(None), MessageRead.user_id != Message.sender_id),
        )
        read_at = _first_read_by(recipient)
        conditions = self._conditions(where, read_at)
        statement = (
            select(*_COLUMNS, type_coerce(read_at, UtcDateTime()).label("read_at"))
            .join(Claim, Claim.id == Message.claim_id)
            .outerjoin(User, User.id == Message.sender_id)
            .where(*conditions)
            .order_by(Message.created_at.desc(), Message.id.desc())
        )
        rows = (await self.session.execute(statement.offset(offset).limit(limit))).all()
        count = select(func.count()).select_from(Message).join(Claim, Claim.id == Message.claim_id)
        total = await self.session.scalar(count.where(*conditions))
        return rows, total or 0

    @staticmethod
    def _conditions(where: MessageFilter, read_at: Any) -> list[ColumnElement[bool]]:
        conditions: list[ColumnElement[bool]] = []
        if where.claim_id is not None:
            conditions.append(Message.claim_id == where.claim_id)
        if where.sender_id is not None:
            conditions.append(Message.sender_id == where.sender_id)
        if where.unread is not None:
            conditions.append(read_at.is_(None) if where.unread else read_at.is_not(None))
        return conditions


MessageRepo = Annotated[MessageRepository, Depends(MessageRepository.dependency)]
