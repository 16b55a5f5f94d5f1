"""What a new subscriber is sent before it goes live (contract 6, 16.1, 20.3): the events of its topics
after its Last-Event-ID, and the published updates its matchers select that it may receive, re-checked
against its token as live updates are."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import ValidationFailed
from app.realtime.history import events_after, ids_after, parse_last_event_id, update_ids_after, updates_after
from app.realtime.hub import Subscriber, receives
from app.realtime.publishing import StoredEvent
from app.realtime.updates import MAX_ID, decode, update_event_id

# Published updates of any topic read for one subscription that selects by template, URL pattern or `*`.
SCAN_LIMIT = 10_000


async def resolve_last_event_id(session: AsyncSession, raw: str | None, field: str) -> int | None:
    """A client's Last-Event-ID as a point in commit order: `earliest` (0), an event id, or the id of a
    published update still in the history; anything else -> 400 naming `field` (12.6)."""
    try:
        return parse_last_event_id(raw, field)
    except ValidationFailed:
        if raw is None or len(raw) > MAX_ID:
            raise
        found = await update_event_id(session, raw)
        if found is None:
            raise
        return found


async def replay_for(session: AsyncSession, subscriber: Subscriber, after: int) -> list[StoredEvent]:
    """The events above `after` this subscriber receives, oldest first."""
    names = set(subscriber.topics)
    events = await events_after(session, list(names), after)
    if subscriber.matchers:
        seen = {event.id for event in events}
        more = await updates_after(session, after, SCAN_LIMIT)
        events = sorted([*events, *(event for event in more if event.id not in seen)], key=lambda e: e.id)
    return [event for event in events if _sent(subscriber, event, names)]


def _sent(subscriber: Subscriber, event: StoredEvent, names: set[str]) -> bool:
    update = decode(event)
    return update is None or receives(subscriber, update, event.topic in names)


async def committed_ids(session: AsyncSession, subscriber: Subscriber, after: int) -> set[int]:
    """The ids above `after` that may concern this subscriber: committed before it connected, not news."""
    found = await ids_after(session, list(subscriber.topics), after)
    if subscriber.matchers:
        found |= await update_ids_after(session, after)
    return found
