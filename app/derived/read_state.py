"""A message's first read by a recipient (`messages.recipient_read_at`): what the admin list shows as read
state and filters on. A recipient is the claim's customer or assigned supplier, other than the sender; the
column follows the read rows when they are written, and is computed again for a claim whose participants
change, so it always says what the read rows would."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlalchemy import func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Claim, Message, MessageRead

# The first read of the message by a recipient, from the read rows (a correlated subquery).
_FIRST_RECIPIENT_READ = (
    select(func.min(MessageRead.read_at))
    .where(
        MessageRead.message_id == Message.id,
        Claim.id == Message.claim_id,
        or_(MessageRead.user_id == Claim.customer_id, MessageRead.user_id == Claim.supplier_id),
        or_(Message.sender_id.is_(None), MessageRead.user_id != Message.sender_id),
    )
    .correlate(Message)
    .scalar_subquery()
)


async def recipient_read(session: AsyncSession, message_ids: Collection[int], at: datetime) -> None:
    """A recipient read these messages at `at`: the first such read sticks."""
    if message_ids:
        await session.execute(
            update(Message)
            .where(Message.id.in_(message_ids), Message.recipient_read_at.is_(None))
            .values(recipient_read_at=at)
            .execution_options(synchronize_session=False)
        )


async def recompute(session: AsyncSession, claim_ids: Collection[int]) -> None:
    """The claims' participants changed: whose reads count changed with them."""
    if claim_ids:
        await session.execute(
            update(Message)
            .where(Message.claim_id.in_(claim_ids))
            .values(recipient_read_at=_FIRST_RECIPIENT_READ)
            .execution_options(synchronize_session=False)
        )
