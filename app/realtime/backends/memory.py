"""Single process: the session's after-commit hook (EVENT_SINK) wakes the reader."""

from __future__ import annotations

from typing import Any

from app.realtime.backends import Wake
from app.realtime.events import EVENT_SINK


class MemoryBackend:
    def __init__(self, session_hooks: dict[str, Any]) -> None:
        self._hooks = session_hooks

    async def start(self, wake: Wake) -> None:
        def sink(_event_ids: list[int]) -> None:
            wake()

        self._hooks[EVENT_SINK] = sink

    async def stop(self) -> None:
        self._hooks.pop(EVENT_SINK, None)
