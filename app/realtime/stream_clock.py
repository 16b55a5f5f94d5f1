"""One clock for every open stream: heartbeats and token expiry.

A timer per stream would give each subscriber a timer handle (about half a kilobyte) and a re-arm per
wait; one clock that looks at every subscriber once per tick costs a fraction of a microsecond per
subscriber per tick. A tick is at most a second, and at most half the heartbeat period: a quiet stream
gets a heartbeat within WARRANTY_SSE_HEARTBEAT seconds of its last write, and a stream ends within one
tick before its token expires, never after.
"""

from __future__ import annotations

import asyncio

from app.core.background import pause
from app.realtime.hub import Hub

MAX_TICK = 1.0  # seconds


def tick_interval(heartbeat: float) -> float:
    return min(MAX_TICK, heartbeat / 2)


def tick(hub: Hub, now: float, heartbeat: float, interval: float) -> None:
    """Ends the streams whose token expires before the next tick; marks a heartbeat due on those that
    would otherwise stay quiet for longer than `heartbeat`."""
    for subscriber in hub.subscribers():
        if now + interval >= subscriber.expires_at:
            hub.close_subscriber(subscriber, "expired")
        elif now + interval - subscriber.written > heartbeat:
            subscriber.beat = True
            subscriber.wake()


async def clock_forever(hub: Hub, heartbeat: float, stop: asyncio.Event) -> None:
    interval = tick_interval(heartbeat)
    loop = asyncio.get_running_loop()
    while await pause(stop, interval):
        tick(hub, loop.time(), heartbeat, interval)
