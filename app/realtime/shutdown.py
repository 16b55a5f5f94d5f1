"""Ending open streams when the server is asked to stop.

uvicorn waits for open responses to finish BEFORE it runs the lifespan shutdown, so an endless stream
would hold it until its graceful-shutdown timeout. Its SIGINT/SIGTERM handler is a bound method of the
Server, whose `should_exit` flag flips at once: the hub watches that flag and closes every stream.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

POLL = 0.2


def server_exit_flag() -> Callable[[], bool] | None:
    """`should_exit` of the uvicorn Server running this app, when one installed the signal handlers."""
    for number in (signal.SIGTERM, signal.SIGINT):
        server = getattr(signal.getsignal(number), "__self__", None)
        if server is not None and hasattr(server, "should_exit"):
            return lambda: bool(server.should_exit)
    return None


async def watch_exit(should_exit: Callable[[], bool], on_exit: Callable[[], None]) -> None:
    # A flag owned by uvicorn: polling it is the only way to see it flip.
    while not should_exit():  # noqa: ASYNC110
        await asyncio.sleep(POLL)
    on_exit()


async def pause(stop: asyncio.Event, seconds: float) -> bool:
    """Waits `seconds`, or less when `stop` is set; answers whether to go on.

    The hub's background loops wait here instead of sleeping, so shutdown stops them between two reads
    instead of cancelling one halfway (a SQLite connection cancelled mid-query can keep the write lock).
    """
    try:
        async with asyncio.timeout(seconds):
            await stop.wait()
    except TimeoutError:
        return True
    return False


async def finish(tasks: list[asyncio.Task[None]], within: float) -> None:
    """Lets stopping loops finish their current step; cancels what is still running after `within`."""
    _done, pending = await asyncio.wait(tasks, timeout=within)
    for task in pending:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
