"""Ending open streams when the server is asked to stop.

uvicorn waits for open responses to finish BEFORE it runs the lifespan shutdown, so an endless stream
would hold it until its graceful-shutdown timeout. Its SIGINT/SIGTERM handler is a bound method of the
Server, whose `should_exit` flag flips at once: the hub watches that flag and closes every stream.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from typing import Any

POLL = 0.2


def server_exit_flag() -> Callable[[], bool] | None:
    """`should_exit` of the uvicorn Server running this app, when one installed the signal handlers."""
    for number in (signal.SIGTERM, signal.SIGINT):
        server = getattr(signal.getsignal(number), "__self__", None)
        if server is not None and hasattr(server, "should_exit"):
            return lambda: bool(server.should_exit)
    return None


def draining(state: Any) -> bool:
    """Whether this process is shutting down: uvicorn's exit flag is up (read now, not at the watch's next
    poll), or the lifespan shutdown has begun. `/health/ready` answers 503 from then on."""
    should_exit = getattr(state, "server_exit", None)
    return bool(getattr(state, "draining", False) or (should_exit is not None and should_exit()))


async def watch_exit(should_exit: Callable[[], bool], on_exit: Callable[[], None]) -> None:
    # A flag owned by uvicorn: polling it is the only way to see it flip.
    while not should_exit():  # noqa: ASYNC110
        await asyncio.sleep(POLL)
    on_exit()
