"""Sessions whose commits wake a stand-in for the worker, as the in-app worker's sessions wake it."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.db import CommitHooks, create_sessionmaker
from tests.outbox.support import Wakes


@pytest.fixture
def wakes() -> Wakes:
    return Wakes()


@pytest.fixture
def sessions(app: FastAPI, wakes: Wakes) -> async_sessionmaker[AsyncSession]:
    """Sessions on the app's engine whose commits wake `wakes`, as the in-app worker's do."""
    return create_sessionmaker(app.state.engine, CommitHooks(wake_outbox=wakes))
