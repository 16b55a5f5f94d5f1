"""Single process: the session's after-commit hook (EVENT_SINK) hands the committed events to the tail."""

from __future__ import annotations

from typing import Any

from app.realtime.events import EVENT_SINK
from app.realtime.tail import EventTail


class MemoryBackend:
    def __init__(self, session_hooks: dict[str, Any]) -> None:
        self._hooks = session_hooks

    async def start(self, tail: EventTail) -> None:
        self._hooks[EVENT_SINK] = tail.accept

    async def stop(self) -> None:
        self._hooks.pop(EVENT_SINK, None)
