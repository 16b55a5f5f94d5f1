"""The in-process hub: topics -> subscribers, each with a bounded list of ready-to-send SSE frames.

Every event is serialized once (`frame`) and the same bytes are queued for all its subscribers. Fan-out
never waits: a subscriber whose queue is full is dropped (its stream ends; it resumes with Last-Event-ID).
A subscriber is a small slotted object with no task of its own: its stream waits on one future at a time,
which a delivery, the hub's clock or `close` resolves.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict

from app.observability.metrics import series
from app.realtime.matchers import Matcher, any_matches
from app.realtime.publishing import StoredEvent
from app.realtime.updates import UPDATE_PREFIX, Update, decode, frame_update

logger = logging.getLogger("warranty.realtime")

NOTHING: frozenset[int] = frozenset()


# What must never reach a `data:` line raw: every C0 and C1 control character (CR and LF end an SSE line;
# a client built on splitlines also breaks on VT, FF, FS, GS, RS and NEL) and the Unicode line and
# paragraph separators. Inside a JSON string each is the same text as its \uXXXX escape, and compact JSON
# (how events are stored, app.realtime.publishing) has none of them outside its strings.
_ONE_LINE = {code: f"\\u{code:04x}" for code in [*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029]}


def frame(event: StoredEvent) -> bytes:
    """The service's own events: `id:` and exactly one `data:` line (the JSON with line breaks and
    controls escaped), no `event:` line (so EventSource.onmessage gets everything). A published update:
    framed as its publisher gave it (app.realtime.updates.frame_update)."""
    update = decode(event)
    if update is not None:
        return frame_update(update)
    return f"id: {event.id}\ndata: {event.payload.translate(_ONE_LINE)}\n\n".encode()


def receives(subscriber: Subscriber, update: Update, selected: bool) -> bool:
    """Whether a published update reaches this subscriber: selected by one of its topics (`selected`, the
    hub's index) or matchers, and, when private, granted by its token's `subscribe` matchers."""
    if not selected and not any_matches(subscriber.matchers, update.topic):
        return False
    return not update.private or any_matches(subscriber.grants, update.topic)


class Subscriber:
    """One open stream's state in the hub: kept small, there may be tens of thousands."""

    __slots__ = (
        "beat",
        "closed",
        "credential_version",
        "expires_at",
        "grants",
        "matchers",
        "pending",
        "reason",
        "skip",
        "topics",
        "user_id",
        "waiter",
        "written",
    )

    def __init__(
        self,
        user_id: int | None,
        topics: tuple[str, ...],
        matchers: tuple[Matcher, ...] = (),
        grants: tuple[Matcher, ...] = (),
    ) -> None:
        self.user_id = user_id  # None: a Mercure subscriber (its own token, or anonymous)
        self.topics = topics
        self.matchers = matchers  # published updates' templates, URL patterns, `*`
        self.grants = grants  # the topics its token may receive private updates of
        self.pending: list[tuple[int, bytes]] = []  # (event id, frame), oldest first
        self.closed = False
        self.reason = ""
        # Ids this subscriber got by replay, or that were committed before it connected: never sent live.
        self.skip: frozenset[int] | set[int] = NOTHING
        self.waiter: asyncio.Future[None] | None = None  # set while its stream waits
        # For the hub's clock (app.realtime.stream_clock), in event-loop time.
        self.written = asyncio.get_running_loop().time()  # when its stream last wrote
        self.expires_at = float("inf")  # when its token expires
        self.credential_version = 0  # its token's (app/access/credentials.check_credentials)
        self.beat = False  # a heartbeat is due

    def wake(self) -> None:
        """Resumes the stream if it is waiting; otherwise it sees the change before it waits again."""
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def disconnected(self, _receiving: object = None) -> None:
        """The client went away: the stream ends when it next looks (a done-callback, so no closure)."""
        self.closed = True
        self.reason = "disconnect"
        self.wake()

    def take(self, after: int) -> bytes:
        """The waiting frames joined, minus those at or below `after` or in `skip`."""
        pending, skip = self.pending, self.skip
        chunk = b"".join(data for event_id, data in pending if event_id > after and event_id not in skip)
        # Cleared, not replaced: a new list per event would outlive the young GC generations and bring
        # on full collections, whose pauses grow with the number of open streams.
        pending.clear()
        return chunk


class TooManyStreams(Exception):
    pass


class HubClosed(Exception):
    pass


class Hub:
    def __init__(self, queue_size: int, max_streams_per_user: int) -> None:
        self._queue_size = queue_size
        self._max_per_user = max_streams_per_user
        self._by_topic: dict[str, set[Subscriber]] = defaultdict(set)
        self._per_user: dict[int, int] = defaultdict(int)
        self._subscribers: set[Subscriber] = set()
        self._matching: set[Subscriber] = set()  # those with matchers: tested against every update
        self.closing = False

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)

    def subscribe(
        self,
        user_id: int | None,
        topics: list[str],
        matchers: tuple[Matcher, ...] = (),
        grants: tuple[Matcher, ...] = (),
    ) -> Subscriber:
        """Registers a live subscription; raises TooManyStreams over the per-user cap."""
        if self.closing:
            raise HubClosed
        if user_id is not None and self._per_user[user_id] >= self._max_per_user:
            raise TooManyStreams
        subscriber = Subscriber(user_id, tuple(topics), matchers, grants)
        self._subscribers.add(subscriber)
        if user_id is not None:
            self._per_user[user_id] += 1
        if matchers:
            self._matching.add(subscriber)
        for topic in topics:
            self._by_topic[topic].add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        """Idempotent: the stream's own end, overflow and shutdown may all call it."""
        if subscriber not in self._subscribers:
            return
        self._subscribers.discard(subscriber)
        self._matching.discard(subscriber)
        user_id = subscriber.user_id
        if user_id is not None:
            self._per_user[user_id] -= 1
            if self._per_user[user_id] <= 0:
                del self._per_user[user_id]
        self.drop_topics(subscriber, set(subscriber.topics))

    def drop_topics(self, subscriber: Subscriber, topics: set[str]) -> None:
        for topic in topics:
            subscribers = self._by_topic.get(topic)
            if subscribers is not None:
                subscribers.discard(subscriber)
                if not subscribers:
                    del self._by_topic[topic]
        subscriber.topics = tuple(topic for topic in subscriber.topics if topic not in topics)

    def subscribers(self) -> list[Subscriber]:
        """A copy: the caller may close some while walking it."""
        return list(self._subscribers)

    def revoke(self, subscriber: Subscriber, topics: set[str]) -> None:
        """The user may no longer see these topics: drop them, and end the stream when none is left."""
        self.drop_topics(subscriber, topics)
        if not subscriber.topics and not subscriber.matchers:
            self.close_subscriber(subscriber, "access")

    def close_subscriber(self, subscriber: Subscriber, reason: str) -> None:
        """Ends one stream: no more events are queued for it, and its stream stops when it next looks."""
        if not subscriber.closed:
            subscriber.closed = True
            subscriber.reason = reason
        self.unsubscribe(subscriber)
        subscriber.wake()

    def deliver(self, events: list[StoredEvent]) -> None:
        """Fans committed events out; never blocks."""
        limit = self._queue_size
        overflowed: list[Subscriber] = []
        for event in events:
            if event.topic.startswith(UPDATE_PREFIX):
                subscribers = self._update_subscribers(event)
            else:
                subscribers = self._by_topic.get(event.topic) or set()
            if not subscribers:
                continue
            item = (event.id, frame(event))
            for subscriber in subscribers:
                pending = subscriber.pending
                if len(pending) >= limit:
                    overflowed.append(subscriber)
                    continue
                pending.append(item)
                subscriber.wake()
            # Dropped after the loop: closing changes the set being walked.
            for subscriber in overflowed:
                if not subscriber.closed:
                    logger.info("hub: subscriber of user %s cannot keep up; disconnected", subscriber.user_id)
                    series().hub_overflows.inc()
                self.close_subscriber(subscriber, "overflow")
            overflowed.clear()

    def _update_subscribers(self, event: StoredEvent) -> set[Subscriber]:
        """Who receives a published update: its topic's subscribers and those whose matchers select it,
        less, for a private one, those whose token does not grant it."""
        if not self._matching and event.topic not in self._by_topic:
            return set()
        update = decode(event)
        if update is None:
            return set()
        selected = self._by_topic.get(event.topic, set())
        return {
            subscriber
            for subscriber in selected | self._matching
            if receives(subscriber, update, subscriber in selected)
        }

    def close(self) -> None:
        """Shutdown: every stream ends promptly, and no new one opens."""
        self.closing = True
        for subscriber in list(self._subscribers):
            self.close_subscriber(subscriber, "shutdown")
