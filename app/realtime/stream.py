"""One subscriber's stream: replayed frames, then live ones from its queue, heartbeats in between.

No task of its own: the heartbeat and the token expiry are the timeout of the one `queue.get()` the
stream waits on. No database session is held while streaming; lost access is found by the hub's sweep
(app.realtime.sweep), which revokes topics and closes the stream through its queue.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass

from app.realtime.events import StoredEvent
from app.realtime.hub import CLOSE, Hub, Subscriber, frame

HEARTBEAT = b": heartbeat\n\n"
MAX_BATCH = 64  # frames written in one send when several are waiting


@dataclass
class Timing:
    heartbeat: float
    expires_in: float  # seconds until the token expires


class Stream:
    def __init__(
        self,
        hub: Hub,
        subscriber: Subscriber,
        replay: list[StoredEvent],
        skip: set[int],
        after: int | None,
        timing: Timing,
    ) -> None:
        self._hub = hub
        self._subscriber = subscriber
        self._replay = replay
        self._after = after or 0
        self._timing = timing
        subscriber.skip = skip
        # A response that never starts streaming never runs `frames`' finally: let collection unsubscribe.
        weakref.finalize(self, hub.unsubscribe, subscriber)

    async def frames(self) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        expires_at = loop.time() + self._timing.expires_in
        heartbeat_at = loop.time() + self._timing.heartbeat
        try:
            if self._replay:
                yield b"".join(frame(event) for event in self._replay)
                self._replay = []
            while True:
                now = loop.time()
                if now >= expires_at:
                    return  # the client reconnects with a fresh token
                wait = min(expires_at, heartbeat_at) - loop.time()
                try:
                    async with asyncio.timeout(max(0.0, wait)):
                        first = await self._subscriber.queue.get()
                except TimeoutError:
                    if loop.time() >= heartbeat_at:
                        yield HEARTBEAT
                        heartbeat_at = loop.time() + self._timing.heartbeat
                    continue
                chunk = self._take(first)
                if chunk is None:
                    return
                if chunk:
                    yield chunk
                    heartbeat_at = loop.time() + self._timing.heartbeat
        finally:
            self._hub.unsubscribe(self._subscriber)

    def _take(self, first: tuple[int, bytes]) -> bytes | None:
        """The waiting frames joined, minus those already replayed; None when the stream must end."""
        parts: list[bytes] = []
        item: tuple[int, bytes] | None = first
        while item is not None:
            if item is CLOSE or self._subscriber.closed:
                return None
            event_id, data = item
            if event_id > self._after and event_id not in self._subscriber.skip:
                parts.append(data)
            item = (
                self._subscriber.queue.get_nowait()
                if len(parts) < MAX_BATCH and not self._subscriber.queue.empty()
                else None
            )
        return b"".join(parts)
