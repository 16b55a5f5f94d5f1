"""Marking messages read: per user, only the messages the reader received, each at most once."""

from __future__ import annotations

from sqlalchemy import exists, literal, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.claims import is_participant
from app.changes.dispatch import record
from app.changes.events import MessagesRead
from app.core.clock import utc_now
from app.core.types import UtcDateTime
from app.derived.read_state import recipient_read
from app.models import Claim, Message, MessageRead, User


async def mark_read(session: AsyncSession, claim: Claim, reader: User) -> list[int]:
    """Mark the reader's unread received messages of `claim` read; answer the ids it marked (oldest
    first). Records MessagesRead when it marked any (app.changes: `messages_read` goes to the hub when the
    reader is a participant; an admin looking on is not a read receipt for the sender)."""
    now = utc_now()
    unread = select(Message.id, literal(reader.id), literal(now, UtcDateTime())).where(
        Message.claim_id == claim.id,
        or_(Message.sender_id.is_(None), Message.sender_id != reader.id),
        ~exists().where(MessageRead.message_id == Message.id, MessageRead.user_id == reader.id),
    )
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    # ON CONFLICT DO NOTHING: of two concurrent marks, each answers only the rows it inserted.
    statement = (
        dialect.insert(MessageRead)
        .from_select(["message_id", "user_id", "read_at"], unread)
        .on_conflict_do_nothing()
        .returning(MessageRead.message_id)
    )
    marked = sorted(await session.scalars(statement))
    if not marked:
        return marked
    receipt = await is_participant(session, reader, claim)
    if receipt:
        await recipient_read(session, marked, now)
    await record(session, MessagesRead(claim, reader, tuple(marked), now, receipt))
    return marked
