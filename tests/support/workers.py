"""Outbox workers on the test app's database, as the entry points assemble them (app.worker_assembly):
`worker` sends email to the test SMTP server (tests/support/smtp.py) and pushes to the log backend,
`push_worker` pushes to the test gorush (tests/support/gorush.py). Registered for every package by
tests/conftest.py."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from app.notifications.email import SmtpSender
from app.notifications.push import GorushPush
from app.outbox.worker import OutboxWorker
from app.worker_assembly import build_worker
from tests.support.smtp import SMTP_URL, Inbox


@pytest.fixture
def worker(app: FastAPI, inbox: Inbox) -> OutboxWorker:
    """A worker on the app's database sending to the test SMTP server (push: the log backend)."""
    settings = app.state.settings
    return build_worker(
        settings, app.state.sessionmaker, app.state.storage, mailer=SmtpSender(SMTP_URL, timeout=5)
    )


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
