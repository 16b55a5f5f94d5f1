"""One subscriber's stream: replayed frames, then live ones from its queue, heartbeats in between.

No task of its own: the heartbeat, the token expiry and the periodic re-authorization are all the
timeout of the one `queue.get()` the stream waits on. No database session is held while streaming; the
re-authorization opens one for a single check and closes it.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.models import User
from app.realtime.access import visible_claim_ids
from app.realtime.events import StoredEvent
from app.realtime.hub import CLOSE, Hub, Subscriber, frame
from app.realtime.topics import Topic

logger = logging.getLogger("warranty.realtime")

HEARTBEAT = b": heartbeat\n\n"
MAX_BATCH = 64  # frames written in one send when several are waiting


@dataclass
class Timing:
    heartbeat: float
    reauthorize: float
    expires_in: float  # seconds until the token expires


class Stream:
    def __init__(
        self,
        hub: Hub,
        subscriber: Subscriber,
        topics: list[Topic],
        replay: list[StoredEvent],
        skip: set[int],
        after: int | None,
        sessionmaker: async_sessionmaker[AsyncSession],
        timing: Timing,
    ) -> None:
        self._hub = hub
        self._subscriber = subscriber
        self._claims = {topic.name: topic.claim_id for topic in topics}
        self._replay = replay
        self._after = after or 0
        self._sessionmaker = sessionmaker
        self._timing = timing
        subscriber.skip = skip
        # A response that never starts streaming never runs `frames`' finally: let collection unsubscribe.
        weakref.finalize(self, hub.unsubscribe, subscriber)

    async def frames(self) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        expires_at = loop.time() + self._timing.expires_in
        reauthorize_at = loop.time() + self._timing.reauthorize
        heartbeat_at = loop.time() + self._timing.heartbeat
        try:
            if self._replay:
                yield b"".join(frame(event) for event in self._replay)
                self._replay = []
            while True:
                now = loop.time()
                if now >= expires_at:
                    return  # the client reconnects with a fresh token
                if now >= reauthorize_at:
                    if not await self._reauthorize():
                        return
                    reauthorize_at = loop.time() + self._timing.reauthorize
                wait = min(expires_at, reauthorize_at, heartbeat_at) - loop.time()
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

    async def _reauthorize(self) -> bool:
        """Drops the topics of claims the user may no longer see; False when none is left. When the
        database cannot answer, the stream goes on and is checked again next time (the token's expiry
        still bounds it)."""
        try:
            async with self._sessionmaker() as session:
                user = await session.get(User, self._subscriber.user_id)
                visible = (
                    await visible_claim_ids(session, user, set(self._claims.values()))
                    if user is not None
                    else set()
                )
        except Exception:
            logger.warning("hub: could not re-check a subscriber's access; keeping it until the next check")
            return True
        lost = {name for name, claim_id in self._claims.items() if claim_id not in visible}
        if lost:
            logger.info("hub: user %s lost access to %s", self._subscriber.user_id, sorted(lost))
            self._hub.drop_topics(self._subscriber, lost)
            for name in lost:
                del self._claims[name]
        return bool(self._claims)
