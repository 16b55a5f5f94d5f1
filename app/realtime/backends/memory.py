"""Single process: the session's after-commit hook (CommitHooks.publish_event) hands each committed event to
the tail."""

from __future__ import annotations

from app.core.db import CommitHooks
from app.realtime.publishing import StoredEvent
from app.realtime.tail import EventTail


class MemoryBackend:
    def __init__(self, hooks: CommitHooks) -> None:
        self._hooks = hooks

    async def start(self, tail: EventTail) -> None:
        def publish(event_id: int, topic: str, payload: str) -> None:
            tail.accept([StoredEvent(event_id, topic, payload)])

        self._hooks.publish_event = publish

    async def stop(self) -> None:
        self._hooks.publish_event = None
