"""The single-process backend (app.realtime.backends.memory): the after-commit hook hands each committed event
to the tail, so the hub delivers without a query."""

from __future__ import annotations

from typing import Any, cast

import httpx
import pytest

from app.core.db import CommitHooks
from app.realtime.backends.memory import MemoryBackend
from app.realtime.publishing import StoredEvent, messages_topic
from app.realtime.tail import EventTail
from tests.factories.realtime import new_message, publish_event
from tests.helpers import count_queries
from tests.realtime.support import LiveServer, scene, subscribe


async def test_one_process_delivers_without_a_query(
    live: LiveServer, http: httpx.AsyncClient, is_postgres: bool
) -> None:
    if is_postgres:
        pytest.skip("on PostgreSQL the hub reads the rows a NOTIFY announces")
    s = await scene(live.app)
    async with subscribe(http, messages_topic(s.claim.id), token=s.token) as stream:
        with count_queries(live.app, with_hub_reader=True) as statements:
            sent = await publish_event(live.app, messages_topic(s.claim.id), new_message(s.claim.id, 1))
            assert await stream.events(1) == [sent]
    assert len(statements) == 1 and statements[0].startswith("INSERT INTO events")


async def test_once_started_the_hook_hands_each_committed_event_to_the_tail_until_stopped() -> None:
    hooks = CommitHooks()
    delivered: list[StoredEvent] = []
    backend = MemoryBackend(hooks)
    await backend.start(EventTail(cast(Any, None), delivered.extend))  # handed events need no read

    assert hooks.publish_event is not None
    hooks.publish_event(3, "claims/1/messages", '{"n":3}')
    hooks.publish_event(4, "claims/1/status", '{"n":4}')
    assert delivered == [
        StoredEvent(3, "claims/1/messages", '{"n":3}'),
        StoredEvent(4, "claims/1/status", '{"n":4}'),
    ]

    await backend.stop()
    assert hooks.publish_event is None
