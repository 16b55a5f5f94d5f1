"""The outbox as an admin sees it (app.outbox.repository): a page of rows newest first, a failed row put
back to pending, every failed row (of a kind) put back in one statement, the worker woken once that commits;
directly and through the admin routes."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.clock import frozen_time, utc_now
from app.core.ids import MAX_BIGINT_ID
from app.errors import Conflict, NotFound
from app.models import OutboxItem
from app.models.enums import OutboxState
from app.outbox.repository import OutboxRepository
from app.outbox.worker import OutboxWorker
from tests.factories.notifications import outbox_rows
from tests.factories.users import auth_headers, create_admin, create_user
from tests.helpers import assert_error
from tests.outbox.support import Wakes, bodies, messages_for
from tests.support.smtp import Inbox


async def _rows(sessions: async_sessionmaker[AsyncSession], *statuses: str) -> list[int]:
    """One row per status, oldest first; answers their ids."""
    ids = []
    for status in statuses:
        async with sessions() as session, session.begin():
            row = OutboxItem(
                kind="email.claim_message", payload={}, status=status, attempts=3, next_attempt_at=utc_now()
            )
            session.add(row)
            await session.flush()
            ids.append(row.id)
    return ids


async def test_a_page_is_newest_first_with_its_total_filtered_by_status(
    app: FastAPI, sessions: async_sessionmaker[AsyncSession]
) -> None:
    ids = await _rows(sessions, "failed", "done", "failed", "pending", "failed")
    failed = [ids[4], ids[2], ids[0]]
    async with sessions() as session:
        outbox = OutboxRepository(session)
        everything, total = await outbox.page(None, limit=10, offset=0)
        assert [row.id for row in everything] == ids[::-1] and total == 5
        first, total = await outbox.page("failed", limit=2, offset=0)
        assert [row.id for row in first] == failed[:2] and total == 3
        by_offset, _ = await outbox.page("failed", limit=2, offset=2)
        by_cursor, total = await outbox.page("failed", limit=2, offset=0, after_id=failed[1])
        assert [row.id for row in by_offset] == [row.id for row in by_cursor] == failed[2:]
        assert total == 3  # the total counts the whole filter, not what is after the cursor


async def test_retrying_a_failed_row_makes_it_due_now_and_wakes_the_worker_after_the_commit(
    app: FastAPI, sessions: async_sessionmaker[AsyncSession], wakes: Wakes
) -> None:
    [row_id] = await _rows(sessions, "failed")
    async with sessions() as session, session.begin():
        await session.execute(
            update(OutboxItem)
            .where(OutboxItem.id == row_id)
            .values(locked_until=utc_now() + timedelta(hours=1))
        )
    later = utc_now() + timedelta(minutes=5)

    async with sessions() as session:
        with frozen_time(later):
            retried = await OutboxRepository(session).retry(row_id)
        assert wakes.count == 0  # not before the commit
        await session.commit()
    assert wakes.count == 1

    assert (retried.status, retried.attempts, retried.locked_until) == (OutboxState.PENDING, 0, None)
    [row] = await outbox_rows(app)
    assert (row.status, row.attempts, row.next_attempt_at) == ("pending", 0, later)


async def test_a_retry_rolled_back_wakes_nothing(
    app: FastAPI, sessions: async_sessionmaker[AsyncSession], wakes: Wakes
) -> None:
    [row_id] = await _rows(sessions, "failed")
    async with sessions() as session:
        await OutboxRepository(session).retry(row_id)
        await session.rollback()
    assert wakes.count == 0
    assert [row.status for row in await outbox_rows(app)] == ["failed"]


@pytest.mark.parametrize("status", ["pending", "done", "skipped"])
async def test_only_a_failed_row_can_be_retried(
    app: FastAPI, sessions: async_sessionmaker[AsyncSession], status: str
) -> None:
    [row_id] = await _rows(sessions, status)
    async with sessions() as session:
        with pytest.raises(Conflict) as refused:
            await OutboxRepository(session).retry(row_id)
    assert refused.value.code == "NOTIFICATION_NOT_FAILED" and status in refused.value.message
    assert [row.status for row in await outbox_rows(app)] == [status]


@pytest.mark.parametrize("row_id", [0, -1, MAX_BIGINT_ID, MAX_BIGINT_ID + 1, 10**30])
async def test_an_id_that_names_no_row_is_not_found(
    app: FastAPI, sessions: async_sessionmaker[AsyncSession], row_id: int
) -> None:
    async with sessions() as session:
        with pytest.raises(NotFound):
            await OutboxRepository(session).retry(row_id)


async def test_retrying_every_failed_row_of_a_kind_counts_them_and_wakes_once(
    app: FastAPI, sessions: async_sessionmaker[AsyncSession], wakes: Wakes
) -> None:
    emails = await _rows(sessions, "failed", "failed", "done")
    [push] = await _rows(sessions, "failed")
    async with sessions() as session, session.begin():
        await session.execute(
            update(OutboxItem).where(OutboxItem.id == push).values(kind="push.claim_message")
        )

    async with sessions() as session, session.begin():
        assert await OutboxRepository(session).retry_failed("email.claim_message") == 2
    assert wakes.count == 1
    async with sessions() as session:
        found = {row.id: (row.status, row.attempts) for row in await session.scalars(select(OutboxItem))}
    assert found == {
        emails[0]: ("pending", 0),
        emails[1]: ("pending", 0),
        emails[2]: ("done", 3),
        push: ("failed", 3),
    }

    async with sessions() as session, session.begin():
        assert await OutboxRepository(session).retry_failed(None) == 1  # the push, whatever its kind
        assert await OutboxRepository(session).retry_failed(None) == 0
    assert wakes.count == 2  # nothing put back: no wake-up


async def test_admin_notifications_need_an_admin_and_a_known_status(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app)
    admin = await create_admin(app)
    assert_error(await client.get("/api/admin/notifications"), 401, "AUTH_REQUIRED")
    assert_error(
        await client.get("/api/admin/notifications", headers=auth_headers(app, user)), 403, "FORBIDDEN"
    )
    assert_error(
        await client.post("/api/admin/notifications/1/retry", headers=auth_headers(app, user)),
        403,
        "FORBIDDEN",
    )
    bad = await client.get("/api/admin/notifications?status=lost", headers=auth_headers(app, admin))
    assert_error(bad, 400, "VALIDATION_FAILED")
    missing = await client.post("/api/admin/notifications/999/retry", headers=auth_headers(app, admin))
    assert_error(missing, 404, "NOT_FOUND")


@pytest.mark.settings(outbox_retry_hours=0.00025)  # 0.9 s: the second attempt comes after it
async def test_bulk_retry_puts_every_failed_notification_of_a_kind_back(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    admin = auth_headers(app, await create_admin(app))
    inbox.stop()
    await messages_for(app, 3)  # three emails and three pushes (the log backend delivers the pushes)
    async with app.state.sessionmaker() as session, session.begin():  # and three failed pushes
        await session.execute(
            update(OutboxItem).where(OutboxItem.kind == "push.claim_message").values(status="failed")
        )
    await worker.run_until_idle()
    with frozen_time(utc_now() + timedelta(hours=2)):
        await worker.run_until_idle()
    assert {row.status for row in await outbox_rows(app)} == {"failed"}

    assert_error(
        await client.post("/api/admin/notifications/retry", json={"status": "pending"}, headers=admin),
        400,
        "VALIDATION_FAILED",
    )
    emails = await client.post(
        "/api/admin/notifications/retry",
        json={"status": "failed", "kind": "email.claim_message"},
        headers=admin,
    )
    assert emails.status_code == 202 and emails.json() == {"count": 3}
    assert [row.status for row in await outbox_rows(app, "push.claim_message")] == ["failed"] * 3

    inbox.start()
    await worker.run_until_idle()
    assert bodies(inbox) == Counter({"message 0": 1, "message 1": 1, "message 2": 1})
    everything = await client.post("/api/admin/notifications/retry", json={"status": "failed"}, headers=admin)
    assert everything.status_code == 202 and everything.json() == {"count": 3}
    await worker.run_until_idle()
    assert {row.status for row in await outbox_rows(app)} == {"done"}
    none_left = await client.post("/api/admin/notifications/retry", json={"status": "failed"}, headers=admin)
    assert none_left.json() == {"count": 0}
