from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from fastapi import FastAPI

from app.notifications.email import SmtpSender
from app.notifications.push import GorushPush
from app.outbox.worker import OutboxWorker
from app.worker_assembly import build_worker
from tests.notifications.gorush import Gorush
from tests.support.smtp import SMTP_URL, Inbox

APNS_TOPIC = "com.example.warranty"  # the iOS app's bundle id


@pytest.fixture
def gorush() -> Iterator[Gorush]:
    server = Gorush(APNS_TOPIC)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def worker(app: FastAPI, inbox: Inbox) -> OutboxWorker:
    """A worker on the app's database sending to the test SMTP server (push: the log backend)."""
    settings = app.state.settings
    return build_worker(
        settings, app.state.sessionmaker, app.state.storage, mailer=SmtpSender(SMTP_URL, timeout=5)
    )


@pytest.fixture
async def pusher(gorush: Gorush) -> AsyncIterator[GorushPush]:
    """The service's gorush sender, configured with the iOS app's bundle id as its APNs topic."""
    sender = GorushPush(gorush.url, timeout=5, apns_topic=APNS_TOPIC)
    yield sender
    await sender.aclose()


@pytest.fixture
def push_worker(app: FastAPI, pusher: GorushPush) -> OutboxWorker:
    """A worker on the app's database sending email to the test SMTP server and pushes to gorush."""
    settings = app.state.settings
    return build_worker(
        settings,
        app.state.sessionmaker,
        app.state.storage,
        mailer=SmtpSender(SMTP_URL, timeout=5),
        pusher=pusher,
    )
