"""Enqueueing (app.outbox.enqueue): a row recorded in the caller's transaction, pending and due at once,
naming the request that caused it (contract 14.2), and the worker woken only once that transaction commits."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.clock import frozen_time, utc_now
from app.core.db import CommitHooks, create_sessionmaker
from app.models.enums import OutboxKind
from app.observability import request_context
from app.outbox.enqueue import enqueue, wake_worker
from tests.factories.notifications import outbox_rows
from tests.outbox.support import Wakes


async def test_a_row_is_pending_due_now_and_names_the_request(
    app: FastAPI, sessions: async_sessionmaker[AsyncSession], wakes: Wakes
) -> None:
    now = utc_now().replace(microsecond=0)
    bound = request_context.bind("req-enqueue")
    try:
        with frozen_time(now):
            async with sessions() as session, session.begin():
                item = enqueue(session, OutboxKind.EMAIL_PASSWORD_RESET, {"email": "ann@example.com"})
                assert wakes.count == 0  # not before the commit
    finally:
        request_context.unbind(bound)

    assert wakes.count == 1
    [row] = await outbox_rows(app)
    assert row.id == item.id and row.kind == "email.password_reset"
    assert row.payload == {"email": "ann@example.com"}
    assert (row.status, row.attempts, row.next_attempt_at) == ("pending", 0, now)
    assert row.request_id == "req-enqueue"
    assert (row.locked_until, row.done_at, row.last_error) == (None, None, None)


async def test_a_notification_no_request_caused_has_no_request_id(app: FastAPI) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        enqueue(session, "email.expiry_alert", {"productId": 1, "days": 7})
    [row] = await outbox_rows(app)
    assert row.request_id is None


async def test_a_rolled_back_transaction_leaves_no_row_and_wakes_nothing(
    app: FastAPI, sessions: async_sessionmaker[AsyncSession], wakes: Wakes
) -> None:
    async with sessions() as session:
        enqueue(session, OutboxKind.EMAIL_PASSWORD_RESET, {"email": "ann@example.com"})
        await session.flush()
        await session.rollback()
    assert wakes.count == 0
    assert await outbox_rows(app) == []


async def test_a_transaction_of_several_rows_wakes_the_worker_after_it(
    app: FastAPI, sessions: async_sessionmaker[AsyncSession], wakes: Wakes
) -> None:
    async with sessions() as session, session.begin():
        enqueue(session, OutboxKind.EMAIL_PASSWORD_RESET, {"email": "ann@example.com"})
        enqueue(session, OutboxKind.PUSH_CLAIM_MESSAGE, {"messageId": 1, "recipientId": 1})
        assert wakes.count == 0
    assert wakes.count >= 1
    assert len(await outbox_rows(app)) == 2


async def test_waking_without_a_worker_listening_is_nothing(app: FastAPI) -> None:
    """A session of a process that runs no worker (a command, an API process with the worker apart)."""
    nobody = create_sessionmaker(app.state.engine, CommitHooks())
    async with nobody() as session, session.begin():
        wake_worker(session)
        enqueue(session, OutboxKind.EMAIL_PASSWORD_RESET, {"email": "ann@example.com"})
    assert [row.status for row in await outbox_rows(app)] == ["pending"]
