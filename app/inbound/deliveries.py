"""Idempotency of inbound deliveries: the keys an email was seen under, unique in the database.

Keys are `webhook:<webhook-id>`, `email:<provider email id>` and `msgid:<Message-ID>`; a delivery matching
any key already recorded is a duplicate. They are inserted in a savepoint before the message is made, so
of two concurrent deliveries of one email exactly one inserts them (on PostgreSQL the second insert waits
for the first transaction and then fails; SQLite serializes the transactions) and the other is a duplicate.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.clock import utc_now
from app.models import InboundDelivery

_MAX_KEY = 500


def _key(kind: str, value: str) -> str:
    key = f"{kind}:{value}"
    if len(key) > _MAX_KEY:  # the column holds 512; an absurdly long id is kept as its hash
        key = f"{kind}#sha256:{hashlib.sha256(value.encode()).hexdigest()}"
    return key


def content_key(sender: str, recipients: list[str], subject: str, text: str, html: str) -> str:
    """`content:<SHA-256>` over what a delivery says, each field length-prefixed (no two splits collide)."""
    digest = hashlib.sha256()
    for part in (sender, "\n".join(recipients), subject, text, html):
        encoded = part.encode("utf-8", "surrogatepass")
        digest.update(len(encoded).to_bytes(8, "big"))
        digest.update(encoded)
    return f"content:{digest.hexdigest()}"


def delivery_keys(
    webhook_id: str | None, provider_email_id: str | None, message_id: str | None, content: str
) -> list[str]:
    """The keys a delivery is known by; its content's hash when it carries no id at all (a replay of a
    signed payload without ids is then a duplicate too)."""
    keys = []
    if webhook_id:
        keys.append(_key("webhook", webhook_id))
    if provider_email_id:
        keys.append(_key("email", provider_email_id))
    if message_id:
        keys.append(_key("msgid", message_id))
    return keys or [content]


async def seen(session: AsyncSession, keys: list[str]) -> bool:
    """Whether any of `keys` was recorded already."""
    if not keys:
        return False
    found = await session.scalar(select(InboundDelivery.id).where(InboundDelivery.key.in_(keys)).limit(1))
    return found is not None


async def record(session: AsyncSession, keys: list[str]) -> list[InboundDelivery] | None:
    """Record `keys`; None when another delivery recorded one of them first (a duplicate)."""
    rows = [InboundDelivery(key=key) for key in keys]
    try:
        async with session.begin_nested():
            session.add_all(rows)
            await session.flush()
    except IntegrityError:
        return None
    return rows


async def prune(session: AsyncSession, keep_days: int) -> int:
    """Forget keys older than `keep_days` (at least the provider's retry period); answers how many."""
    cutoff = utc_now() - timedelta(days=keep_days)
    result = await session.execute(delete(InboundDelivery).where(InboundDelivery.created_at < cutoff))
    return int(getattr(result, "rowcount", 0) or 0)
