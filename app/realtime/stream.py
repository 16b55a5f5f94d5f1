"""One subscriber's stream, written straight to the ASGI `send`: replayed frames, then live ones, with
heartbeats in between, until the token expires or the hub closes the subscriber.

It runs in the request's own task and waits on the subscriber's one future: a delivery, the subscriber's
one timer (the next heartbeat or the token's expiry) or `Hub.close_subscriber` resolves it. The timer is
re-armed only when it fires, not at every frame. No database session is held while streaming; lost access
is found by the hub's sweep (app.realtime.sweep), which closes the subscriber.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from starlette.types import Send

from app.realtime.events import StoredEvent
from app.realtime.hub import Subscriber, frame

HEARTBEAT = b": heartbeat\n\n"


@dataclass
class Timing:
    heartbeat: float
    expires_in: float  # seconds until the token expires


def _body(chunk: bytes) -> dict[str, object]:
    return {"type": "http.response.body", "body": chunk, "more_body": True}


async def stream(
    send: Send, subscriber: Subscriber, replay: list[StoredEvent], after: int | None, timing: Timing
) -> None:
    """Writes the stream's frames until it must end; the caller sends the response start before and the
    final empty body after."""
    loop = asyncio.get_running_loop()
    expires_at = loop.time() + timing.expires_in
    if replay:
        await send(_body(b"".join(frame(event) for event in replay)))
    after = after or 0
    written = loop.time()  # when the last bytes went out: a heartbeat is due a period after
    timer: asyncio.TimerHandle | None = None
    try:
        while True:
            now = loop.time()
            if now >= expires_at:
                return  # the client reconnects with a fresh token
            if subscriber.pending or subscriber.closed:
                chunk = subscriber.take(after)
                if chunk is None:
                    return
                if chunk:
                    await send(_body(chunk))
                    written = loop.time()
                continue
            if now - written >= timing.heartbeat:
                await send(_body(HEARTBEAT))
                written = loop.time()
                continue
            if timer is None:
                timer = loop.call_at(min(written + timing.heartbeat, expires_at), subscriber.wake)
            await subscriber.wait()
            if timer.when() <= loop.time():
                timer = None  # it has fired (or is about to: one spare wake-up, harmless)
    finally:
        if timer is not None:
            timer.cancel()
