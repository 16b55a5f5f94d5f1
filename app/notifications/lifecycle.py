"""Starts and stops the outbox worker with the app."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from app.config import Settings


@asynccontextmanager
async def worker_lifespan(
    app: FastAPI, settings: Settings, session_hooks: dict[str, Any]
) -> AsyncIterator[None]:
    yield
