"""Message reads: a claim's messages with the caller's read state, and the admin list. Each list is two
queries (rows with senders and read state joined, and the count), whatever its length."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import ColumnElement, Select, and_, bindparam, case, func, select, tuple_, type_coerce

from app.api.pagination import KeyKind
from app.core.driver_reads import driver_read
from app.core.repository import Repository
from app.core.types import UtcDateTime
from app.derived.counts import claim_messages, row_count
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


_messages, _users, _reads = Message.__table__, User.__table__, MessageRead.__table__
ViewerShape = Literal["all", "page", "after", "one"]
# A message list's cursor key: (created_at, id).
LIST_KEY: tuple[KeyKind, KeyKind] = ("datetime", "int")


def _after_key(ascending: bool) -> ColumnElement[bool]:
    """The messages after a cursor's (created_at, id) key (parameters after_created, after_id)."""
    m = _messages.c
    key = tuple_(m.created_at, m.id)
    bound = tuple_(bindparam("after_created", type_=m.created_at.type), bindparam("after_id"))
    return key > bound if ascending else key < bound


@functools.cache
def _for_viewer(shape: ViewerShape) -> Select[Any]:
    """A claim's messages as a viewer sees them, built once per shape (every message, a page, one
    message, a page after a cursor's key) as a plain Core statement: `read_at` is the viewer's own read of
    a message they received, or the first read by another participant of a message they sent. Parameters:
    claim_id, viewer_id, participants (the others), and offset/limit, after_created/after_id or
    message_id."""
    m = _messages.c
    mine = _reads.alias("mine")
    receipt = (
        select(func.min(_reads.c.read_at))
        .where(_reads.c.message_id == m.id, _reads.c.user_id.in_(bindparam("participants", expanding=True)))
        .scalar_subquery()
    )
    read_at = case((m.sender_id == bindparam("viewer_id"), receipt), else_=mine.c.read_at)
    sender = _users.c
    statement = (
        select(
            *(m[name] for name in ("id", "claim_id", "sender_id", "body", "created_at")),
            *(m[name] for name in ("attachment_name", "attachment_mime", "attachment_size")),
            sender.name.label("sender_name"),
            sender.email.label("sender_email"),
            sender.profile_picture.label("sender_picture"),
            type_coerce(read_at, UtcDateTime()).label("read_at"),
        )
        .select_from(
            _messages.outerjoin(_users, sender.id == m.sender_id).outerjoin(
                mine, and_(mine.c.message_id == m.id, mine.c.user_id == bindparam("viewer_id"))
            )
        )
        .where(m.claim_id == bindparam("claim_id"))
    )
    if shape == "one":
        return statement.where(m.id == bindparam("message_id"))
    if shape == "after":
        statement = statement.where(_after_key(ascending=True))
    statement = statement.order_by(m.created_at, m.id)
    return statement if shape == "all" else statement.offset(bindparam("offset")).limit(bindparam("limit"))


def _viewer_parameters(claim: Claim, viewer_id: int) -> dict[str, Any]:
    others = [uid for uid in (claim.customer_id, claim.supplier_id) if uid and uid != viewer_id]
    return {"claim_id": claim.id, "viewer_id": viewer_id, "participants": others}


class MessageRepository(Repository):
    async def list_for_claim(
        self,
        claim: Claim,
        viewer_id: int,
        *,
        offset: int = 0,
        limit: int | None = None,
        after: tuple[Any, ...] | None = None,
    ) -> tuple[Sequence[Any], int]:
        """Oldest first; every message when `limit` is None; `after` (created_at, id): the messages after
        that key."""
        parameters = _viewer_parameters(claim, viewer_id)
        if limit is None:
            rows = await driver_read(_for_viewer("all")).all(self.session, **parameters)
            return rows, len(rows)
        window: dict[str, Any] = {"offset": offset, "limit": limit}
        if after is not None:
            window |= {"offset": 0, "after_created": after[0], "after_id": after[1]}
        shape: ViewerShape = "page" if after is None else "after"
        rows = await driver_read(_for_viewer(shape)).all(self.session, **parameters, **window)
        return rows, await row_count(self.session, claim_messages(claim.id))

    async def one_for_claim(self, claim: Claim, viewer_id: int, message_id: int) -> Any:
        parameters = _viewer_parameters(claim, viewer_id) | {"message_id": message_id}
        return await driver_read(_for_viewer("one")).one(self.session, **parameters)

    async def attachment_of(self, claim_id: int, message_id: int) -> Message | None:
        """The message, if it is in this claim and carries an attachment."""
        return await self.session.scalar(
            select(Message).where(
                Message.id == message_id, Message.claim_id == claim_id, Message.attachment_key.is_not(None)
            )
        )

    async def list_all(
        self, where: MessageFilter, *, offset: int, limit: int, after: tuple[Any, ...] | None = None
    ) -> tuple[Sequence[Any], int]:
        """Every message (admin), newest first; `read_at` is the first read by a recipient (kept on the
        message). `after` (created_at, id): the messages after that key."""
        read_at = Message.recipient_read_at
        conditions = self._conditions(where, read_at)
        statement = (
            select(*_COLUMNS, read_at.label("read_at"))
            .outerjoin(User, User.id == Message.sender_id)
            .where(*conditions)
            .order_by(Message.created_at.desc(), Message.id.desc())
        )
        if after is not None:
            statement = statement.where(_after_key(ascending=False))
            keyed = {"after_created": after[0], "after_id": after[1]}
        rows = (
            await self.session.execute(statement.offset(offset).limit(limit), keyed if after else {})
        ).all()
        return rows, await self._total(where, conditions)

    async def _total(self, where: MessageFilter, conditions: list[ColumnElement[bool]]) -> int:
        """Without a claim or sender, the kept counts (all, unread, and read as the difference)."""
        if where.claim_id is not None and where.sender_id is None and where.unread is None:
            return await row_count(self.session, claim_messages(where.claim_id))
        if where.claim_id is None and where.sender_id is None:
            if where.unread is None:
                return await row_count(self.session, "messages")
            unread = await row_count(self.session, "messages:unread")
            return unread if where.unread else await row_count(self.session, "messages") - unread
        count = select(func.count()).select_from(Message)
        return await self.session.scalar(count.where(*conditions)) or 0

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
