"""Background loops that stop between two steps, never in the middle of one.

A loop waits with `pause` instead of sleeping, so shutdown stops it between two database reads instead of
cancelling one halfway (a SQLite connection cancelled mid-query can keep the write lock).
"""

from __future__ import annotations

import asyncio


async def pause(stop: asyncio.Event, seconds: float) -> bool:
    """Waits `seconds`, or less when `stop` is set; answers whether to go on."""
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
