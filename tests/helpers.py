"""Assertions and probes shared by the tests of every domain."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import httpx
from fastapi import FastAPI
from sqlalchemy import event

from app.storage.storage import discard_on_rollback

T = TypeVar("T")


def assert_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The response is the contract's error body with this status and code; answers the body."""
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["code"] == code, body
    assert set(body) <= {"error", "message", "code", "details"}, body
    assert isinstance(body["error"], str) and isinstance(body["message"], str) and body["message"]
    return body


# What the real-time hub's background reader runs on the shared engine (woken by NOTIFY on PostgreSQL,
# at any moment): not part of any request.
HUB_READER = "SELECT events.id, events.topic, events.payload"


@contextmanager
def count_queries(app: FastAPI, *, with_hub_reader: bool = False) -> Iterator[list[str]]:
    """Collects every SQL statement the app's engine runs inside the block (transaction control excluded,
    and the hub's background reads unless `with_hub_reader`)."""
    statements: list[str] = []
    engine = app.state.engine.sync_engine
    skipped = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        text = statement.lstrip()
        if text.upper().startswith(skipped) or (not with_hub_reader and text.startswith(HUB_READER)):
            return
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", record)


async def wait_for(probe: Callable[[], Awaitable[T]], *, within: float = 10.0, interval: float = 0.05) -> T:
    """Polls `probe` until it returns something truthy, or fails after `within` seconds."""
    deadline = asyncio.get_running_loop().time() + within
    while True:
        result = await probe()
        if result:
            return result
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"gave up waiting after {within}s; last result: {result!r}")
        await asyncio.sleep(interval)


@contextmanager
def failing_statement(app: FastAPI, prefix: str) -> Iterator[None]:
    """Inside the block, the app's database fails every statement starting with `prefix` (as if it went
    away at that point of a transaction)."""
    engine = app.state.engine.sync_engine

    def fail(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith(prefix.upper()):
            raise RuntimeError("the database went away")

    event.listen(engine, "before_cursor_execute", fail)
    try:
        yield
    finally:
        event.remove(engine, "before_cursor_execute", fail)


async def files_of_a_rollback_and_a_commit(app: FastAPI) -> tuple[str, str]:
    """Saves a file for a transaction that rolls back and one for a transaction that commits (followed by a
    rollback of the same session); answers their keys: the first should be gone, the second kept."""
    storage = app.state.storage
    async with app.state.sessionmaker() as session:
        await session.begin()
        dropped = await storage.save("receipts", b"%PDF-1.4 dropped", "pdf")
        discard_on_rollback(session, storage, dropped)
        await session.rollback()
        await session.begin()
        kept = await storage.save("receipts", b"%PDF-1.4 kept", "pdf")
        discard_on_rollback(session, storage, kept)
        await session.commit()
        await session.begin()
        await session.rollback()  # a later rollback of the same session leaves the committed file alone
    await storage.drain()  # removals may run in the background
    return dropped, kept
