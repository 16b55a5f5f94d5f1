"""Hub benchmark: N idle subscribers held open against one service process, then events published the way
`app.realtime.publishing.publish` does (an events row in one transaction; at its commit the trigger of
migration 0006 gives the row its id and sends NOTIFY), each carrying the wall-clock time just before the
INSERT. Measures publish-to-receive latency over every (event, subscriber)
pair and memory per idle subscriber (growth of the server's RSS / N, after the server settles).

The client shares the machine's two cores with the server and PostgreSQL, so it is kept as cheap as it
can be: one asyncio.Protocol per connection (no task, no stream reader) whose `data_received` only stamps
the arrival time and keeps the bytes; events are parsed after the run, each timed by the read that
completed it.
"""

from __future__ import annotations

import asyncio
import bisect
import json
import statistics
import time
from dataclasses import dataclass
from typing import cast

import asyncpg

BATCH = 200  # connections opened at once (the listen backlog must not overflow)
DATA = b"data: "


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


@dataclass
class HubFigures:
    subscribers: int
    topics: int
    events: int
    received: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    kib_per_subscriber: float

    def as_dict(self) -> dict[str, float]:
        return dict(self.__dict__)


class Opened:
    """Counts streams whose response head arrived; `ready` resolves when `wanted` of them have."""

    def __init__(self, wanted: int) -> None:
        self.count = 0
        self.wanted = wanted
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def one(self) -> None:
        self.count += 1
        if self.count >= self.wanted and not self.ready.done():
            self.ready.set_result(None)

    def fail(self, error: Exception) -> None:
        if not self.ready.done():
            self.ready.set_exception(error)


class Subscriber(asyncio.Protocol):
    """One stream. While running it only timestamps and keeps what it reads; `latencies` parses after."""

    __slots__ = ("events", "head", "opened", "reads", "request", "transport")

    def __init__(self, request: bytes, opened: Opened) -> None:
        self.request = request
        self.opened = opened
        self.transport: asyncio.Transport | None = None
        self.head: bytes | None = b""  # the response head until it is complete, then None
        self.reads: list[tuple[float, bytes]] = []
        self.events = 0  # `data: ` lines seen so far (tells the run when everything has arrived)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's transports do not subclass it
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        arrived = time.time()
        if self.head is not None:
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                return
            if not self.head.startswith(b"HTTP/1.1 200"):
                self.opened.fail(RuntimeError(f"subscribe failed: {self.head[:300]!r}"))
                return
            data, self.head = self.head[end + 4 :], None
            self.opened.one()
        self.reads.append((arrived, data))
        self.events += data.count(DATA)

    def latencies(self) -> list[float]:
        """(arrival - sentAt) in ms for each event, arrival being the read that brought its last byte."""
        stream = b"".join(data for _, data in self.reads)
        ends = []  # offset just past each read
        total = 0
        for _, data in self.reads:
            total += len(data)
            ends.append(total)
        found = []
        start = stream.find(DATA)
        while start >= 0:
            end = stream.find(b"\n", start)
            if end < 0:
                break
            arrived = self.reads[bisect.bisect_right(ends, end)][0]
            sent = json.loads(stream[start + len(DATA) : end])["sentAt"]
            found.append((arrived - sent) * 1000)
            start = stream.find(DATA, end)
        return found


async def _open(port: int, token: str, topics: list[str], count: int) -> list[Subscriber]:
    loop = asyncio.get_running_loop()
    clients: list[Subscriber] = []
    for first in range(0, count, BATCH):
        opened = Opened(min(BATCH, count - first))
        batch = []
        for index in range(first, first + opened.wanted):
            request = (
                f"GET /.well-known/mercure?topic={topics[index % len(topics)]} HTTP/1.1\r\n"
                f"Host: 127.0.0.1\r\nAuthorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n"
            ).encode()
            batch.append(Subscriber(request, opened))
        await asyncio.gather(
            *(loop.create_connection(lambda c=client: c, "127.0.0.1", port) for client in batch)  # type: ignore[misc]
        )
        await asyncio.wait_for(opened.ready, 120)
        clients.extend(batch)
    return clients


async def _publish(dsn: str, topics: list[str], events_per_topic: int, gap: float) -> None:
    connection = await asyncpg.connect(dsn)
    try:
        for _ in range(events_per_topic):
            for topic in topics:
                async with connection.transaction():
                    sent = time.time()
                    payload = json.dumps({"type": "bench", "sentAt": sent})
                    await connection.execute(
                        "INSERT INTO events (topic, payload, created_at) VALUES ($1, $2, now())",
                        topic,
                        payload,
                    )
            await asyncio.sleep(gap)
    finally:
        await connection.close()


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def measure(
    *,
    port: int,
    server_pid: int,
    dsn: str,
    token: str,
    claim_ids: list[int],
    subscribers: int,
    events_per_topic: int = 10,
    publish_topics: int = 1,
) -> HubFigures:
    topics = [f"claims/{claim_id}/messages" for claim_id in claim_ids]
    before = rss_kib(server_pid)
    clients = await _open(port, token, topics, subscribers)
    await asyncio.sleep(2)  # let the server settle before reading its memory
    per_subscriber = (rss_kib(server_pid) - before) / subscribers

    published = topics[:publish_topics]
    await _publish(dsn, published, events_per_topic, gap=0.3)
    expected = events_per_topic * sum(1 for i in range(subscribers) if topics[i % len(topics)] in published)
    deadline = time.monotonic() + 60
    # The protocols only count; polling the counts keeps signalling out of their data_received.
    while sum(c.events for c in clients) < expected and time.monotonic() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(0.1)
    for client in clients:
        if client.transport is not None:
            client.transport.close()

    latencies = [latency for client in clients for latency in client.latencies()]
    return HubFigures(
        subscribers=subscribers,
        topics=len(topics),
        events=events_per_topic * len(published),
        received=len(latencies),
        p50_ms=round(statistics.median(latencies), 2) if latencies else float("nan"),
        p99_ms=round(_percentile(latencies, 0.99), 2) if latencies else float("nan"),
        max_ms=round(max(latencies), 2) if latencies else float("nan"),
        kib_per_subscriber=round(per_subscriber, 2),
    )
