from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI

from app.notifications.delivery import build_worker
from app.notifications.email import SmtpSender
from app.notifications.push import GorushPush
from app.notifications.worker import OutboxWorker
from tests.notifications.servers import Gorush, Inbox, free_port

# Chosen once, so `@pytest.mark.settings(smtp_url=SMTP_URL)` can name it.
SMTP_PORT = free_port()
SMTP_URL = f"smtp://127.0.0.1:{SMTP_PORT}"


@pytest.fixture
def inbox() -> Iterator[Inbox]:
    server = Inbox(SMTP_PORT)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def gorush() -> Iterator[Gorush]:
    server = Gorush()
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


def push_worker(app: FastAPI, gorush: Gorush) -> OutboxWorker:
    settings = app.state.settings
    return build_worker(
        settings,
        app.state.sessionmaker,
        app.state.storage,
        mailer=SmtpSender(SMTP_URL, timeout=5),
        pusher=GorushPush(gorush.url, timeout=5),
    )
