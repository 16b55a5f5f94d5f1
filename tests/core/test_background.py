"""Background loops stop between two steps (app.core.background): `pause` waits its time or until told to
stop, `finish` lets stopping loops end their step and cancels what outlives its grace."""

from __future__ import annotations

import asyncio
import time

from app.core.background import finish, pause


async def test_a_pause_lasts_its_time_and_then_says_go_on() -> None:
    stop = asyncio.Event()
    started = time.monotonic()
    assert await pause(stop, 0.05) is True
    assert time.monotonic() - started >= 0.04


async def test_a_pause_ends_at_once_when_stopped_and_says_stop() -> None:
    stop = asyncio.Event()
    asyncio.get_running_loop().call_later(0.05, stop.set)
    started = time.monotonic()
    assert await pause(stop, 60) is False
    assert time.monotonic() - started < 5
    assert await pause(stop, 60) is False  # already stopped: no wait at all


async def test_a_loop_that_pauses_stops_between_two_steps() -> None:
    stop, steps = asyncio.Event(), []

    async def loop() -> None:
        while True:
            steps.append("begun")
            await asyncio.sleep(0.01)  # a step: never cut in the middle
            steps.append("done")
            if not await pause(stop, 60):
                return

    task = asyncio.create_task(loop())
    await asyncio.sleep(0.001)
    stop.set()
    await finish([task], within=5)
    assert steps == ["begun", "done"] and task.done() and not task.cancelled()


async def test_finish_cancels_what_is_still_running_after_its_grace() -> None:
    ended = asyncio.Event()

    async def quick() -> None:
        await asyncio.sleep(0.01)
        ended.set()

    async def stuck() -> None:
        await asyncio.sleep(3600)

    async def failing() -> None:
        raise RuntimeError("a loop that broke")

    tasks = [asyncio.create_task(quick()), asyncio.create_task(stuck()), asyncio.create_task(failing())]
    started = time.monotonic()
    await finish(tasks, within=0.2)  # a failed loop's error does not escape it

    assert time.monotonic() - started < 5
    assert ended.is_set() and not tasks[0].cancelled()
    assert tasks[1].cancelled()
    assert isinstance(tasks[2].exception(), RuntimeError)
