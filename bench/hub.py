"""Hub benchmark: N idle subscribers held open against one service process, then events published the way
`app.realtime.events.publish` does (an events row and pg_notify in one transaction), each carrying the
wall-clock time just before its commit. Measures publish-to-receive latency over every (event, subscriber)
pair and memory per idle subscriber (growth of the server's RSS / N).

The client runs in this process on uvloop with one reader task per connection; it shares the machine's
two cores with the server and PostgreSQL, so latencies include that contention.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from dataclasses import dataclass

import asyncpg

NOTIFY_CHANNEL = "warranty_events"


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


class Subscriber:
    def __init__(self) -> None:
        self.arrivals: list[tuple[bytes, float]] = []
        self.connected = asyncio.Event()
        self.writer: asyncio.StreamWriter | None = None


async def _subscribe(port: int, token: str, topic: str, subscriber: Subscriber) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    subscriber.writer = writer
    request = (
        f"GET /.well-known/mercure?topic={topic} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n"
    )
    writer.write(request.encode())
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"subscribe failed: {head[:200]!r}")
    subscriber.connected.set()
    while True:
        line = await reader.readline()
        if not line:
            return
        if b"data: " in line:
            subscriber.arrivals.append((line, time.time()))


async def _publish(dsn: str, topics: list[str], events_per_topic: int, gap: float) -> None:
    connection = await asyncpg.connect(dsn)
    try:
        for _ in range(events_per_topic):
            for topic in topics:
                async with connection.transaction():
                    sent = time.time()
                    payload = json.dumps({"type": "bench", "sentAt": sent})
                    event_id = await connection.fetchval(
                        "INSERT INTO events (topic, payload, created_at) VALUES ($1, $2, now()) RETURNING id",
                        topic,
                        payload,
                    )
                    await connection.execute("SELECT pg_notify($1, $2)", NOTIFY_CHANNEL, str(event_id))
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
    clients = [Subscriber() for _ in range(subscribers)]
    tasks = []
    for index, client in enumerate(clients):
        tasks.append(asyncio.create_task(_subscribe(port, token, topics[index % len(topics)], client)))
        if index % 200 == 199:  # do not overrun the listen backlog
            await asyncio.wait_for(asyncio.gather(*(c.connected.wait() for c in clients[: index + 1])), 120)
    await asyncio.wait_for(asyncio.gather(*(c.connected.wait() for c in clients)), 120)
    await asyncio.sleep(2)  # let the server settle before reading its memory
    per_subscriber = (rss_kib(server_pid) - before) / subscribers

    published = topics[:publish_topics]
    await _publish(dsn, published, events_per_topic, gap=0.3)
    expected = events_per_topic * sum(1 for i in range(subscribers) if topics[i % len(topics)] in published)
    deadline = time.monotonic() + 60
    # Arrivals are plain appends by the reader tasks; polling them keeps those tasks free of signalling.
    while sum(len(c.arrivals) for c in clients) < expected and time.monotonic() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(0.1)

    latencies = [
        (arrived - json.loads(line.split(b"data: ", 1)[1])["sentAt"]) * 1000
        for client in clients
        for line, arrived in client.arrivals
    ]
    for client in clients:
        if client.writer is not None:
            client.writer.close()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
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
