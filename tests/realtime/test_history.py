"""The events table as the hub's history (app.realtime.history): pruning, and where a replay starts: after
a Last-Event-ID (header or query parameter), all history for `earliest` or an unknown id, a 400 for
anything else."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.core.clock import frozen_time
from app.models import Event
from app.realtime.history import prune
from app.realtime.publishing import messages_topic
from tests.factories.realtime import new_message, publish_event
from tests.helpers import assert_error
from tests.realtime.support import LiveServer, answer, scene, subscribe

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


async def _ids(app: FastAPI) -> list[int]:
    async with app.state.sessionmaker() as session:
        return list(await session.scalars(select(Event.id).order_by(Event.id)))


async def test_prune_keeps_the_retention_window(app: FastAPI) -> None:
    with frozen_time(NOW - timedelta(hours=49)):
        old, _ = await publish_event(app, "claims/1/messages", {"type": "old"})
    with frozen_time(NOW - timedelta(hours=47)):
        recent, _ = await publish_event(app, "claims/1/messages", {"type": "recent"})

    with frozen_time(NOW):
        async with app.state.sessionmaker() as session, session.begin():
            assert await prune(session, 48) == 1

    assert await _ids(app) == [recent]
    assert old < recent


async def test_prune_keeps_the_newest_event_so_ids_never_restart(app: FastAPI) -> None:
    with frozen_time(NOW - timedelta(days=10)):
        first, _ = await publish_event(app, "claims/1/messages", {"type": "a"})
        newest, _ = await publish_event(app, "claims/1/status", {"type": "b"})

    with frozen_time(NOW):
        async with app.state.sessionmaker() as session, session.begin():
            await prune(session, 48)
        later, _ = await publish_event(app, "claims/1/messages", {"type": "c"})

    assert await _ids(app) == [newest, later]
    assert first < newest < later


async def test_earliest_and_unknown_ids_replay_all_history(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    history = [await publish_event(live.app, topic, new_message(s.claim.id, n)) for n in (1, 2)]

    for last_id in ("earliest", "999999999", "0"):
        async with subscribe(http, topic, token=s.token, headers={"Last-Event-ID": last_id}) as stream:
            assert await stream.events(2) == history


@pytest.mark.parametrize(
    "value",
    ["²", "١٢", "-1", "+5", "1.5", "abc", "9223372036854775808", "9" * 40, "1e3", "\uff10"],
)
async def test_a_last_event_id_that_is_not_an_id_is_a_400(
    live: LiveServer, http: httpx.AsyncClient, value: str
) -> None:
    s = await scene(live.app)
    topic, auth = messages_topic(s.claim.id), {"Authorization": f"Bearer {s.token}"}
    by_query = await answer(http, [("topic", topic), ("lastEventID", value)], auth)
    body = assert_error(by_query, 400, "VALIDATION_FAILED")
    assert set(body["details"]["fields"]) == {"lastEventID"}

    by_header = await answer(http, [("topic", topic)], {**auth, "Last-Event-ID": value.encode()})
    body = assert_error(by_header, 400, "VALIDATION_FAILED")
    assert set(body["details"]["fields"]) == {"Last-Event-ID"}


async def test_the_largest_id_and_leading_zeros_are_ids(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    for value in ("9223372036854775807", "000", "earliest"):
        async with subscribe(
            http, messages_topic(s.claim.id), token=s.token, headers={"Last-Event-ID": value}
        ):
            pass
