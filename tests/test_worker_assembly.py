"""The outbox worker as the app and `warranty worker` run it (app/worker_assembly.py): a handler for every
kind of outbox row, the senders a caller passes, the daily expiry alerts; and, with the app, started by its
lifespan (woken by each commit that enqueues) and stopped with it."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime
from email.message import EmailMessage

import httpx
from fastapi import FastAPI

from app.core.clock import frozen_time
from app.core.db import commit_hooks
from app.main import create_app
from app.models.enums import OutboxKind, OutboxState
from app.timeline.record import notification_finished
from app.worker_assembly import build_worker
from tests.conftest import SettingsFactory
from tests.factories.notifications import outbox_rows
from tests.factories.products import create_product
from tests.factories.users import create_user
from tests.helpers import wait_for


class Mailbox:
    """A mail sender that keeps what it is given."""

    def __init__(self) -> None:
        self.sent: list[EmailMessage] = []

    async def send(self, message: EmailMessage) -> None:
        self.sent.append(message)


async def test_every_kind_is_handled_with_the_senders_given(app: FastAPI, client: httpx.AsyncClient) -> None:
    await create_user(app, email="ann@example.com")
    mailbox = Mailbox()
    worker = build_worker(app.state.settings, app.state.sessionmaker, app.state.storage, mailer=mailbox)
    assert (await client.post("/api/password/forgot", json={"email": "ann@example.com"})).status_code == 202

    delivered = await worker.run_until_idle()

    assert set(worker.handlers) == set(OutboxKind)
    assert worker.finished is notification_finished
    assert delivered == 1 and [message["To"] for message in mailbox.sent] == ["ann@example.com"]


async def test_the_daily_job_sends_the_expiry_alerts(app: FastAPI) -> None:
    owner = await create_user(app)
    await create_product(app, owner, purchase_date=date(2025, 1, 10), warranty_period_months=12)
    worker = build_worker(app.state.settings, app.state.sessionmaker, app.state.storage, mailer=Mailbox())
    assert worker.daily is not None

    with frozen_time(datetime(2026, 1, 5, 12, 0, tzinfo=UTC)):  # the warranty covers up to 2026-01-10
        await worker.daily()

    assert [row.payload["thresholdDays"] for row in await outbox_rows(app, "email.expiry_alert")] == [7]


async def test_the_app_runs_its_worker_and_stops_it(app: FastAPI, make_settings: SettingsFactory) -> None:
    """Woken by the commit that enqueues: the email goes out long before the next poll would find it.
    (`app`, without a worker, empties the database for this one.)"""
    settings = make_settings(run_worker=True, worker_poll_interval=60.0)
    application = create_app(settings)

    async with application.router.lifespan_context(application):
        worker = application.state.outbox_worker
        async with application.state.sessionmaker() as session:
            hooks = commit_hooks(session)
            assert hooks.wake_outbox == worker.wake
        await create_user(application, email="ann@example.com")
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            forgot = await client.post("/api/password/forgot", json={"email": "ann@example.com"})
            assert forgot.status_code == 202

        async def sent() -> bool:
            rows = await outbox_rows(application)
            return [(row.kind, row.status) for row in rows] == [("email.password_reset", OutboxState.DONE)]

        await wait_for(sent, within=5)
        assert list((settings.data_dir / "mail").glob("*.eml"))

    assert hooks.wake_outbox is None
    assert not [task for task in asyncio.all_tasks() if task.get_name() == "outbox-worker"]
