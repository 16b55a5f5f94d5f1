"""Publishing real-time events: a row in the change's own transaction, delivered only after it commits.

This is the interface the rest of the service uses; the hub (app.realtime.hub) delivers from the rows.
Ids follow commit order: on PostgreSQL a deferred trigger gives the row its id when the transaction
commits, under a lock (migration 0006), and sends NOTIFY so every process's hub reads the new rows; the id
seen before the commit is not the event's. In one process (SQLite, whose writers commit one at a time in
the order they take ids) the after-commit hook `CommitHooks.publish_event` (app.core.db) hands each
committed event to the hub, which then needs no query to deliver it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.db import commit_hooks, on_commit
from app.models import Event
from app.realtime.topics import Topic

# The NOTIFY channel (app.realtime.backends.postgres listens on it), sent by migration 0006's trigger with
# an empty payload: it only says "read the table".
NOTIFY_CHANNEL = "warranty_events"


@dataclass(frozen=True)
class StoredEvent:
    id: int
    topic: str
    payload: str  # the stored JSON, sent as is


def messages_topic(claim_id: int) -> str:
    return Topic(claim_id, "messages").name


def status_topic(claim_id: int) -> str:
    return Topic(claim_id, "status").name


async def publish(session: AsyncSession, topic: str, payload: dict[str, Any]) -> Event:
    """Record `payload` on `topic`; subscribers receive it once the transaction commits, never before."""
    return await publish_text(session, topic, json.dumps(payload, separators=(",", ":"), ensure_ascii=False))


async def publish_text(
    session: AsyncSession, topic: str, text: str, *, update_id: str | None = None
) -> Event:
    """`publish` for a payload serialized already (and, for an update published through the hub, its id:
    app.realtime.updates)."""
    event = Event(topic=topic, payload=text, update_id=update_id)
    session.add(event)
    if session.get_bind().dialect.name == "postgresql":
        if update_id is not None:
            await session.flush()  # a used update id fails here, not at the commit
        return event  # written with the transaction's other changes; its id is given at commit
    await session.flush()
    sink = commit_hooks(session).publish_event
    if sink is not None:
        event_id, stored_topic = event.id, event.topic
        on_commit(session, lambda: sink(event_id, stored_topic, text))
    return event
