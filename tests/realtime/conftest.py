from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from app.config import Settings
from tests.conftest import _empty_all_tables
from tests.realtime.support import LiveServer, live_server


@pytest.fixture
async def live(settings: Settings, database_url: str) -> AsyncIterator[LiveServer]:
    """The test's app served by a real uvicorn (httpx's ASGI transport cannot stream an endless body)."""
    await _empty_all_tables(database_url)
    async with live_server(settings) as server:
        yield server


@pytest.fixture
async def http(live: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live.url, timeout=10) as client:
        yield client
