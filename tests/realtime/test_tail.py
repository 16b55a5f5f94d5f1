"""The tail (app.realtime.tail): every committed event handed to the hub once, in id order, whether handed
over by the after-commit hook or read from the table when woken; reads go on in batches, through the
backend's reader when it has one, and the tail starts after the history."""

from __future__ import annotations

import asyncio

import pytest
from fastapi import FastAPI

from app.realtime import tail as tail_module
from app.realtime.publishing import StoredEvent
from app.realtime.tail import EventTail
from tests.factories.realtime import publish_event
from tests.helpers import wait_for

TOPIC = "claims/1/messages"


def _tail(app: FastAPI) -> tuple[EventTail, list[StoredEvent]]:
    """A tail of the app's database of its own (the app's hub has another), and what it delivered."""
    delivered: list[StoredEvent] = []
    return EventTail(app.state.read_sessionmaker, delivered.extend), delivered


async def _published(app: FastAPI, count: int) -> list[StoredEvent]:
    events = []
    for n in range(count):
        event_id, payload = await publish_event(app, TOPIC, {"n": n})
        events.append(StoredEvent(event_id, TOPIC, payload))
    return events


async def test_it_starts_after_the_newest_committed_event(app: FastAPI) -> None:
    history = await _published(app, 2)
    tail, delivered = _tail(app)

    assert await tail.prepare()
    assert tail.watermark == history[-1].id
    await tail.read()
    assert delivered == []  # history is served by replay, not live


async def test_a_read_delivers_what_is_above_the_watermark_once_in_id_order(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tail_module, "BATCH", 2)
    tail, delivered = _tail(app)
    await tail.prepare()
    events = await _published(app, 5)

    await tail.read()  # three batches of at most two
    await tail.read()
    assert delivered == events
    assert tail.watermark == events[-1].id


async def test_events_handed_over_are_delivered_once_whichever_way_they_come(app: FastAPI) -> None:
    tail, delivered = _tail(app)
    await tail.prepare()
    events = await _published(app, 3)

    tail.accept(events[:2])
    tail.accept(events[1:2])  # already delivered
    await tail.read()  # reads only what the hook did not hand over
    tail.accept(events)
    assert delivered == events


async def test_the_backends_reader_is_used_and_the_table_read_when_it_cannot(app: FastAPI) -> None:
    tail, delivered = _tail(app)
    await tail.prepare()
    events = await _published(app, 2)
    asked: list[tuple[int, int]] = []
    answers: list[list[StoredEvent] | None] = [None, [StoredEvent(events[-1].id + 7, TOPIC, "{}")]]

    async def reader(after: int, limit: int) -> list[StoredEvent] | None:
        asked.append((after, limit))
        return answers.pop(0)

    tail.reader = reader
    await tail.read()  # the reader cannot read now: the table gives both
    await tail.read()  # the reader answers: what it read is delivered
    assert asked == [(0, tail_module.BATCH), (events[-1].id, tail_module.BATCH)]
    assert delivered == [*events, StoredEvent(events[-1].id + 7, TOPIC, "{}")]


async def test_running_it_reads_when_woken_until_stopped(app: FastAPI) -> None:
    tail, delivered = _tail(app)
    await tail.prepare()  # done once: `run` goes on from here
    running = asyncio.create_task(tail.run())
    events = await _published(app, 2)  # the app's hook wakes the app's own tail, not this one

    tail.wake()
    await wait_for(lambda: asyncio.sleep(0, len(delivered) == 2))
    tail.stop()
    await asyncio.wait_for(running, 5)
    assert delivered == events
