"""The outbox worker (app.outbox.worker): outages, backoff, final failure and the admin's retry of it, leases,
unknown kinds, the in-app worker woken by a commit, several workers at once, channels that do not wait for
each other (contract 16.3), and the request id a delivery carries (contract 14.2)."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.core.clock import frozen_time, utc_now
from app.core.db import create_engine, create_sessionmaker
from app.notifications.email import SmtpSender
from app.notifications.push import GorushPush
from app.observability.logs import RequestContextFilter
from app.outbox.worker import OutboxWorker
from app.worker_assembly import build_worker
from tests.factories.claims import claim_cast, create_claim, create_message
from tests.factories.notifications import notify_message, outbox_rows
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error, wait_for
from tests.outbox.support import bodies, messages_for
from tests.support.gorush import Gorush
from tests.support.ports import free_port
from tests.support.smtp import SMTP_URL, Inbox


async def test_mail_server_down_keeps_rows_pending_then_delivers_each_once(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    inbox.stop()
    await messages_for(app, 3)
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

    assert bodies(inbox) == Counter({"message 0": 1, "message 1": 1, "message 2": 1})
    assert len(inbox.to("ann@example.com")) == 4  # and the reset email
    assert {row.status for row in await outbox_rows(app)} == {"done"}


async def test_backoff_grows_with_each_attempt(app: FastAPI, worker: OutboxWorker, inbox: Inbox) -> None:
    inbox.stop()
    await messages_for(app, 1)
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
    await messages_for(app, 1)
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


async def test_a_crashed_workers_lease_runs_out_and_the_row_is_delivered(
    app: FastAPI, worker: OutboxWorker, inbox: Inbox
) -> None:
    await messages_for(app, 1)
    claimed = await worker.claim_batch()  # ... and the worker dies before delivering
    assert len(claimed) == 2
    assert await worker.run_until_idle() == 0  # leased: nobody else takes them

    with frozen_time(utc_now() + timedelta(hours=1)):
        await worker.run_until_idle()

    assert bodies(inbox) == Counter({"message 0": 1})
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
    await messages_for(app, 30)
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
    assert bodies(inbox) == Counter({f"message {n}": 1 for n in range(30)})
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
    await messages_for(app, 1)
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


# The mail client's own timeout; the worker's (3 x WARRANTY_SMTP_TIMEOUT = 30 s) is shorter, and still
# beyond every deadline below.
HANG = 120.0


@pytest.fixture
async def silent_smtp() -> AsyncIterator[str]:
    """Accepts TCP connections and never says a word (no greeting, no answer)."""
    held: list[asyncio.StreamWriter] = []

    async def hold(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    yield f"smtp://127.0.0.1:{port}"
    for writer in held:
        writer.close()
    server.close()


async def test_a_silent_mail_server_does_not_delay_pushes(
    app: FastAPI, client: httpx.AsyncClient, gorush: Gorush, pusher: GorushPush, silent_smtp: str
) -> None:
    cast = await claim_cast(app)
    customer = auth_headers(app, cast.customer)
    await client.post("/api/device-tokens", json={"token": "ann-phone", "platform": "ios"}, headers=customer)
    worker = build_worker(
        app.state.settings,
        app.state.sessionmaker,
        app.state.storage,
        mailer=SmtpSender(silent_smtp, timeout=HANG),
        pusher=pusher,
    )
    running = asyncio.create_task(worker.run_forever())
    try:
        first = await create_message(app, cast.claim, cast.supplier, body="first")
        await notify_message(app, first, [cast.customer])
        worker.wake()
        await wait_for(lambda: _pushes(gorush, 1), within=20)

        async def email_in_flight() -> bool:
            [email] = await outbox_rows(app, "email.claim_message")
            return email.attempts == 1 and email.locked_until is not None and email.status == "pending"

        await wait_for(email_in_flight, within=20)

        # While that email hangs, later notifications go out: pushes, and other emails are claimed too.
        for number in range(3):
            later = await create_message(app, cast.claim, cast.supplier, body=f"later {number}")
            await notify_message(app, later, [cast.customer])
            worker.wake()
        await wait_for(lambda: _pushes(gorush, 4), within=20)
        emails = await outbox_rows(app, "email.claim_message")
        assert all(email.status == "pending" for email in emails)  # still hanging, not delivered
        await wait_for(lambda: _claimed(app, 4), within=20)
    finally:
        worker.stop()
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)


async def _pushes(gorush: Gorush, count: int) -> bool:
    return len(gorush.requests) >= count


async def _claimed(app: FastAPI, count: int) -> bool:
    """`count` emails are being sent at once (each attempted, none done)."""
    emails = await outbox_rows(app, "email.claim_message")
    return sum(1 for email in emails if email.attempts == 1 and email.status == "pending") >= count


async def test_a_message_s_notifications_carry_its_request_id_to_the_gateway_and_the_logs(
    app: FastAPI,
    client: httpx.AsyncClient,
    gorush: Gorush,
    push_worker: OutboxWorker,
    caplog: pytest.LogCaptureFixture,
) -> None:
    customer, supplier = await create_user(app), await create_supplier(app)
    claim = await create_claim(app, await create_product(app, customer), supplier=supplier)
    device = {"token": "ios-1", "platform": "ios"}
    assert (
        await client.post("/api/device-tokens", json=device, headers=auth_headers(app, customer))
    ).is_success

    posted = await client.post(
        f"/api/claims/{claim.id}/messages",
        json={"message": "The part is on its way"},
        headers={**auth_headers(app, supplier), "X-Request-ID": "req-part-shipped"},
    )
    assert posted.status_code == 201
    rows = await outbox_rows(app)
    assert {row.kind for row in rows} >= {"push.claim_message", "email.claim_message"}
    assert {row.request_id for row in rows} == {"req-part-shipped"}

    caplog.handler.addFilter(RequestContextFilter())
    with caplog.at_level(logging.WARNING, logger="app.outbox.worker"):
        await push_worker.run_until_idle()  # no mail server runs: the email fails and is logged

    [push] = [request for request in gorush.requests if request["path"] == "/api/push"]
    assert push["request_id"] == "req-part-shipped"
    [failed] = [record for record in caplog.records if "email.claim_message" in record.getMessage()]
    assert failed.request_id == "req-part-shipped"  # type: ignore[attr-defined]


async def test_a_receiver_s_retry_after_puts_the_next_try_no_earlier(
    app: FastAPI, settings: Settings
) -> None:
    from app.outbox.enqueue import enqueue
    from app.outbox.handlers import RetryLater

    told = iter([3600.0, None, 10**9])

    async def busy(_: dict[str, object]) -> None:
        raise RetryLater("HTTP 429", next(told))

    worker = OutboxWorker(settings, app.state.sessionmaker, {"fax.claim_message": busy})
    async with app.state.sessionmaker() as session, session.begin():
        enqueue(session, "fax.claim_message", {})
    waits = []
    now = utc_now()
    for _ in range(3):
        with frozen_time(now):
            await worker.run_until_idle()
        [row] = await outbox_rows(app)
        waits.append((row.next_attempt_at - now).total_seconds())
        now = row.next_attempt_at
    assert row.status == "pending" and "RetryLater: HTTP 429" in (row.last_error or "")
    assert 3600 <= waits[0] <= 3601  # as the receiver asked, not the 2 s backoff
    assert waits[1] <= settings.outbox_backoff_base * 2  # none asked: the backoff
    assert waits[2] == settings.outbox_backoff_max  # never beyond the longest backoff
