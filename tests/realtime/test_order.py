"""Event ids in commit order under concurrent writers: a subscriber that drops and resumes at random points
receives every event of its topic exactly once, in increasing id order (contract 16.1), in one process and
across two. Writers hold their transactions open for different lengths, so they commit in another order
than the one they wrote their rows in."""

from __future__ import annotations

import asyncio
import random

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.models import Event
from app.realtime.publishing import messages_topic, publish
from tests.factories.realtime import new_message
from tests.realtime.support import LiveServer, Process, Scene, scene, subscribe

pytestmark = pytest.mark.postgres_only

WRITERS = 6
EVENTS_PER_WRITER = 12
API_POSTS = 12
HOLDS = (0.0, 0.0, 0.002, 0.01, 0.03, 0.08)  # seconds a transaction stays open after writing its event


async def _held_writer(app: FastAPI, s: Scene, first: int, rng: random.Random) -> None:
    """Commits events one transaction at a time, each held open a random while after its row is written."""
    for n in range(first, first + EVENTS_PER_WRITER):
        async with app.state.sessionmaker() as session, session.begin():
            await publish(session, messages_topic(s.claim.id), new_message(s.claim.id, n))
            await session.flush()
            await asyncio.sleep(rng.choice(HOLDS))


async def _api_writer(urls: list[str], s: Scene) -> None:
    """Messages posted through the API of each process in turn."""
    for n in range(API_POSTS):
        async with httpx.AsyncClient(base_url=urls[n % len(urls)], timeout=30) as http:
            response = await http.post(
                f"/api/claims/{s.claim.id}/messages",
                json={"message": f"posted {n}"},
                headers={"Authorization": f"Bearer {s.token}"},
            )
            assert response.status_code == 201, response.text


async def _resuming_reader(
    urls: list[str], s: Scene, expected: int, rng: random.Random
) -> tuple[list[tuple[int, str]], int]:
    """Reads a random few events per connection, drops it, resumes from the last id received (on the
    processes in turn); answers what it received and how many connections it made."""
    received: list[tuple[int, str]] = []
    last = "earliest"  # the claim is new: its whole history is what the writers write
    connections = 0
    while len(received) < expected:
        async with (
            httpx.AsyncClient(base_url=urls[connections % len(urls)], timeout=30) as http,
            subscribe(
                http, messages_topic(s.claim.id), token=s.token, headers={"Last-Event-ID": last}
            ) as stream,
        ):
            connections += 1
            for _ in range(min(rng.randint(1, 8), expected - len(received))):
                received.extend(await stream.events(1, within=30))
            last = str(received[-1][0])
    return received, connections


async def _stored(app: FastAPI, s: Scene) -> list[tuple[int, str]]:
    async with app.state.sessionmaker() as session:
        rows = await session.execute(
            select(Event.id, Event.payload)
            .where(Event.topic == messages_topic(s.claim.id))
            .order_by(Event.id)
        )
        return [(row.id, row.payload) for row in rows]


async def _run(app: FastAPI, urls: list[str], seed: int) -> None:
    rng = random.Random(seed)
    s = await scene(app)
    expected = WRITERS * EVENTS_PER_WRITER + API_POSTS
    reader = asyncio.create_task(_resuming_reader(urls, s, expected, random.Random(seed + 1)))
    writers = [_held_writer(app, s, 1000 * (w + 1), random.Random(rng.random())) for w in range(WRITERS)]
    await asyncio.gather(*writers, _api_writer(urls, s))
    try:
        async with asyncio.timeout(60):
            received, connections = await reader
    except TimeoutError:
        stored = await _stored(app, s)
        raise AssertionError(f"the subscriber is still waiting: {len(stored)} stored") from None

    stored = await _stored(app, s)
    assert len(stored) == expected
    assert connections > 5  # it did drop and resume, many times
    ids = [event_id for event_id, _ in received]
    assert ids == sorted(set(ids)), "ids must strictly increase along the resumed stream"
    assert received == stored  # every event once, none skipped, none repeated


async def test_a_resuming_subscriber_gets_every_event_once_in_order_under_concurrent_writers(
    live: LiveServer,
) -> None:
    await _run(live.app, [live.url], seed=13)


async def test_the_same_across_two_processes(live: LiveServer, second_process: Process) -> None:
    async with httpx.AsyncClient(base_url=second_process.url, timeout=10) as second:
        for _ in range(300):  # the second process is up within a generous deadline
            try:
                if (await second.get("/health")).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    await _run(live.app, [live.url, second_process.url], seed=16)
