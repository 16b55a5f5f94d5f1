"""One subscriber's live stream, written straight to the ASGI `send`: events as they are fanned out, and
heartbeats, until the hub closes the subscriber (its token expired, it lost access, it could not keep up,
the client went away, or the server is stopping).

It runs in the request's own task and waits on the subscriber's one future, which a delivery, the hub's
clock (a heartbeat due, app.realtime.stream_clock) or `Hub.close_subscriber` resolves. No database session is
held while streaming.
"""

from __future__ import annotations

import asyncio
import random

from starlette.types import Send

from app.realtime.hub import Subscriber

HEARTBEAT = b": heartbeat\n\n"
# Why the hub itself may end a stream; the client is then told when to reconnect (`retry:`), a random
# 1 to 10 seconds so that the clients of a stopping server do not all come back at the same instant.
HUB_ENDED = frozenset({"shutdown", "overflow", "expired", "access"})
RETRY_MS = (1000, 10000)


def retry_frame() -> bytes:
    return f"retry: {random.randint(*RETRY_MS)}\n\n".encode()


async def stream(send: Send, subscriber: Subscriber, after: int) -> None:
    """Writes frames until the subscriber is closed; events at or below `after` (replayed) are skipped.
    A stream the hub ends gets a last `retry:` frame. The caller sends the response start before, and the
    end of the body after."""
    loop = asyncio.get_running_loop()
    while not subscriber.closed:
        if subscriber.pending:
            chunk = subscriber.take(after)
        elif subscriber.beat:
            subscriber.beat = False
            chunk = HEARTBEAT
        else:
            # The future is awaited here, not in a helper coroutine: one frame less per waiting stream.
            subscriber.waiter = waiter = loop.create_future()
            await waiter
            subscriber.waiter = None
            continue
        if chunk:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            subscriber.written = loop.time()
    if subscriber.reason in HUB_ENDED:
        await send({"type": "http.response.body", "body": retry_frame(), "more_body": True})
