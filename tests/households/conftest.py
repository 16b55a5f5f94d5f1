from __future__ import annotations

import pytest
from fastapi import FastAPI

from app.notifications.email import SmtpSender
from app.outbox.worker import OutboxWorker
from app.worker_assembly import build_worker
from tests.support.smtp import SMTP_URL, Inbox


@pytest.fixture
def worker(app: FastAPI, inbox: Inbox) -> OutboxWorker:
    """A worker on the app's database sending email to the test SMTP server."""
    settings = app.state.settings
    return build_worker(
        settings, app.state.sessionmaker, app.state.storage, mailer=SmtpSender(SMTP_URL, timeout=5)
    )
