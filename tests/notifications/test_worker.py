"""The outbox worker: outages, backoff, final failure, the admin view and retry, the in-app worker."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from app.config import Settings
from app.core.clock import frozen_time, utc_now
from app.core.db import create_engine, create_sessionmaker
from app.models import OutboxItem
from app.notifications.email import SmtpSender
from app.outbox.worker import OutboxWorker
from app.worker_assembly import build_worker
from tests.factories.claims import create_claim, create_message
from tests.factories.notifications import notify_message, outbox_rows
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error, wait_for
from tests.support.ports import free_port
from tests.support.smtp import SMTP_URL, Inbox


async def _messages_for(app: FastAPI, count: int) -> list[int]:
    """`count` messages from a supplier, each notifying the customer (email and push)."""
    customer = await create_user(app, email="ann@example.com")
    supplier = await create_supplier(app)
    claim = await create_claim(app, await create_product(app, customer), supplier=supplier)
    ids = []
    for number in range(count):
        message = await create_message(app, claim, supplier, body=f"message {number}")
        await notify_message(app, message, [customer])
        ids.append(message.id)
    return ids


def _bodies(inbox: Inbox) -> Counter[str]:
    found: Counter[str] = Counter()
    for email in inbox.messages:
        text = email.get_body(preferencelist=("plain",))
        assert text is not None
        found.update(line for line in text.get_content().splitlines() if line.startswith("message "))
    return found


async def test_mail_server_down_keeps_rows_pending_then_delivers_each_once(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    inbox.stop()
    await _messages_for(app, 3)
    # An API request that enqueues an email is not affected by the outage.
    assert (await client.post("/api/password/forgot", json={"email": "ann@example.com"})).status_code == 202

    await worker.run_until_idle()

    emails = await outbox_rows(app, "email.claim_message")
    assert len(emails) == 3
    for row in emails:
        assert row.status == "pending" and row.attempts == 1 and row.last_error
        assert row.next_attempt_at > utc_now() and row.locked_until is None
    assert await worker.run_until_idle() == 0  # nothing is due before the backoff passes

    inbox.start()
    with frozen_time(utc_now() + timedelta(hours=2)):
        await worker.run_until_idle()
        await worker.run_until_idle()

    assert _bodies(inbox) == Counter({"message 0": 1, "message 1": 1, "message 2": 1})
    assert len(inbox.to("ann@example.com")) == 4  # and the reset email
    assert {row.status for row in await outbox_rows(app)} == {"done"}


async def test_backoff_grows_with_each_attempt(app: FastAPI, worker: OutboxWorker, inbox: Inbox) -> None:
    inbox.stop()
    await _messages_for(app, 1)
    waits = []
    now = utc_now()
    for _ in range(4):
        with frozen_time(now):
            await worker.run_until_idle()
        [row] = await outbox_rows(app, "email.claim_message")
        waits.append((row.next_attempt_at - now).total_seconds())
        now = row.next_attempt_at
    base = app.state.settings.outbox_backoff_base
    for attempt, wait in enumerate(waits, start=1):
        full = base * 2 ** (attempt - 1)
        assert full / 2 <= wait <= full


@pytest.mark.settings(outbox_retry_hours=0.00025)  # 0.9 s: the second attempt comes after it
async def test_failed_after_max_attempts_then_admin_lists_and_retries(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    admin = await create_admin(app)
    inbox.stop()
    await _messages_for(app, 1)
    await worker.run_until_idle()
    with frozen_time(utc_now() + timedelta(hours=2)):
        await worker.run_until_idle()
    [row] = await outbox_rows(app, "email.claim_message")
    assert row.status == "failed" and row.attempts == 2

    listed = await client.get("/api/admin/notifications?status=failed", headers=auth_headers(app, admin))

    assert listed.status_code == 200
    body = listed.json()
    assert body["meta"]["total"] == 1 and body["meta"]["current_page"] == 1
    [item] = body["data"]
    assert item["id"] == row.id and item["kind"] == "email.claim_message" and item["status"] == "failed"
    assert item["attempts"] == 2 and "Error" in item["lastError"] and item["doneAt"] is None
    assert item["payload"]["recipientId"] and item["createdAt"].endswith("+00:00")

    retried = await client.post(f"/api/admin/notifications/{row.id}/retry", headers=auth_headers(app, admin))
    assert retried.status_code == 200
    assert retried.json()["status"] == "pending" and retried.json()["attempts"] == 0
    again = await client.post(f"/api/admin/notifications/{row.id}/retry", headers=auth_headers(app, admin))
    assert_error(again, 409, "NOTIFICATION_NOT_FAILED")

    inbox.start()
    await worker.run_until_idle()
    assert len(inbox.messages) == 1
    done = await client.get("/api/admin/notifications?status=done", headers=auth_headers(app, admin))
    assert row.id in [item["id"] for item in done.json()["data"]]


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


async def test_a_crashed_workers_lease_runs_out_and_the_row_is_delivered(
    app: FastAPI, worker: OutboxWorker, inbox: Inbox
) -> None:
    await _messages_for(app, 1)
    claimed = await worker.claim_batch()  # ... and the worker dies before delivering
    assert len(claimed) == 2
    assert await worker.run_until_idle() == 0  # leased: nobody else takes them

    with frozen_time(utc_now() + timedelta(hours=1)):
        await worker.run_until_idle()

    assert _bodies(inbox) == Counter({"message 0": 1})
    assert {(row.status, row.attempts) for row in await outbox_rows(app)} == {("done", 2)}


async def test_unknown_kind_fails_without_retrying(app: FastAPI, worker: OutboxWorker) -> None:
    from app.outbox.enqueue import enqueue

    async with app.state.sessionmaker() as session, session.begin():
        enqueue(session, "fax.claim_message", {})
    await worker.run_until_idle()
    [row] = await outbox_rows(app)
    assert row.status == "failed" and row.attempts == 1 and "fax.claim_message" in (row.last_error or "")


@pytest.mark.settings(run_worker=True, smtp_url=SMTP_URL, worker_poll_interval=3600)
async def test_the_in_app_worker_is_woken_by_the_commit(
    app: FastAPI, client: httpx.AsyncClient, inbox: Inbox
) -> None:
    await create_user(app, email="ann@example.com")
    # The poll interval is an hour: only the wake-up after the commit can deliver this in time.
    response = await client.post("/api/password/forgot", json={"email": "ann@example.com"})

    assert response.status_code == 202
    await wait_for(lambda: _arrived(inbox), within=10)


async def _arrived(inbox: Inbox) -> bool:
    return len(inbox.messages) == 1


@pytest.mark.postgres_only
async def test_two_workers_on_postgresql_deliver_each_notification_once(
    app: FastAPI, settings: Settings, inbox: Inbox
) -> None:
    await _messages_for(app, 30)
    engines = [create_engine(settings), create_engine(settings)]
    workers = [
        build_worker(
            settings.model_copy(update={"worker_batch_size": 4}),
            create_sessionmaker(engine),
            app.state.storage,
            mailer=SmtpSender(SMTP_URL, timeout=5),
        )
        for engine in engines
    ]
    try:
        counts = await asyncio.gather(*(worker.run_until_idle() for worker in workers))
    finally:
        for engine in engines:
            await engine.dispose()

    assert sum(counts) == 60  # 30 emails and 30 pushes, shared between the workers
    assert _bodies(inbox) == Counter({f"message {n}": 1 for n in range(30)})
    assert {(row.status, row.attempts) for row in await outbox_rows(app)} == {("done", 1)}


@pytest.mark.settings(run_worker=True, smtp_url=f"smtp://127.0.0.1:{free_port()}", smtp_timeout=2)
async def test_with_the_mail_server_down_the_api_answers_and_the_row_waits(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    await create_user(app, email="ann@example.com")

    response = await client.post("/api/password/forgot", json={"email": "ann@example.com"})

    assert response.status_code == 202

    async def tried() -> bool:
        rows = await outbox_rows(app)
        return bool(rows) and rows[0].attempts >= 1 and rows[0].locked_until is None

    await wait_for(tried, within=10)
    [row] = await outbox_rows(app)
    assert row.status == "pending" and row.last_error and row.next_attempt_at > utc_now()


async def test_retries_span_a_day_long_outage_before_failing(
    app: FastAPI, worker: OutboxWorker, inbox: Inbox
) -> None:
    inbox.stop()
    await _messages_for(app, 1)
    first_try = utc_now()
    now = first_try
    while True:
        with frozen_time(now):
            await worker.run_until_idle()
        [row] = await outbox_rows(app, "email.claim_message")
        if row.status == "failed":
            break
        assert row.status == "pending"
        now = row.next_attempt_at
    # Never given up before a whole day of retries (WARRANTY_OUTBOX_RETRY_HOURS, default 24).
    assert now - first_try >= timedelta(hours=24)
    assert row.attempts > 8


@pytest.mark.settings(outbox_retry_hours=0.00025)  # 0.9 s: the second attempt comes after it
async def test_bulk_retry_puts_every_failed_notification_of_a_kind_back(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    admin = auth_headers(app, await create_admin(app))
    inbox.stop()
    await _messages_for(app, 3)  # three emails and three pushes (the log backend delivers the pushes)
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
    assert _bodies(inbox) == Counter({"message 0": 1, "message 1": 1, "message 2": 1})
    everything = await client.post("/api/admin/notifications/retry", json={"status": "failed"}, headers=admin)
    assert everything.status_code == 202 and everything.json() == {"count": 3}
    await worker.run_until_idle()
    assert {row.status for row in await outbox_rows(app)} == {"done"}
    none_left = await client.post("/api/admin/notifications/retry", json={"status": "failed"}, headers=admin)
    assert none_left.json() == {"count": 0}
