"""The hub's lifespan (app.realtime.lifespan): the hub, its tail and the backend that fits the database start
with the app, old history is pruned at startup, the young GC threshold is raised while it runs, and
stopping ends every stream and puts the app in draining."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.config import Settings
from app.core.clock import frozen_time, utc_now
from app.main import create_app
from app.models import Event
from app.realtime.backends.memory import MemoryBackend
from app.realtime.backends.postgres import PostgresBackend
from app.realtime.hub import Hub, HubClosed
from app.realtime.lifespan import GC_YOUNG_THRESHOLD
from app.realtime.tail import EventTail
from tests.conftest import SettingsFactory, _empty_all_tables
from tests.factories.realtime import publish_event


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[FastAPI]:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app


async def test_the_hub_its_tail_and_the_backend_that_fits_the_database_start_with_the_app(
    app: FastAPI, is_postgres: bool
) -> None:
    assert isinstance(app.state.hub, Hub) and not app.state.hub.closing
    assert isinstance(app.state.hub_tail, EventTail)
    assert isinstance(app.state.hub_backend, PostgresBackend if is_postgres else MemoryBackend)


async def test_startup_prunes_the_history_older_than_the_retention_and_at_least_a_day_is_kept(
    make_settings: SettingsFactory, database_url: str
) -> None:
    await _empty_all_tables(database_url)
    now = utc_now()
    async with running(make_settings()) as app:
        for hours_ago in (30, 26, 20, 1):
            with frozen_time(now - timedelta(hours=hours_ago)):
                await publish_event(app, "claims/1/messages", {"hoursAgo": hours_ago})

    retention_of_an_hour = make_settings(event_retention_hours=1)  # taken as 24
    async with running(retention_of_an_hour) as app, app.state.sessionmaker() as session:
        kept = list(await session.scalars(select(Event.payload).order_by(Event.id)))
    assert kept == ['{"hoursAgo":20}', '{"hoursAgo":1}']


async def test_the_young_gc_threshold_is_raised_while_the_hub_runs_and_restored_after(
    settings: Settings, database_url: str
) -> None:
    await _empty_all_tables(database_url)
    outside = gc.get_threshold()
    gc.set_threshold(700, 11, 12)  # Python's default young threshold, and marked older ones
    try:
        async with running(settings):
            assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, 11, 12)
        assert gc.get_threshold() == (700, 11, 12)
    finally:
        gc.set_threshold(*outside)


async def test_stopping_ends_every_stream_and_the_app_drains(settings: Settings, database_url: str) -> None:
    await _empty_all_tables(database_url)
    async with running(settings) as app:
        hub: Hub = app.state.hub
        subscriber = hub.subscribe(1, ["claims/1/messages"])
        assert not getattr(app.state, "draining", False)

    assert app.state.draining is True
    assert subscriber.closed and subscriber.reason == "shutdown"
    with pytest.raises(HubClosed):
        hub.subscribe(1, ["claims/1/messages"])
