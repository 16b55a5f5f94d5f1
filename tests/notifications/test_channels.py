"""Channels do not wait for each other (contract 16.3): a mail server that accepts connections and never
answers holds the emails sent to it, for their timeout, and nothing else."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from app.notifications.email import SmtpSender
from app.notifications.push import GorushPush
from app.worker_assembly import build_worker
from tests.factories.claims import claim_cast, create_message
from tests.factories.notifications import notify_message, outbox_rows
from tests.factories.users import auth_headers
from tests.helpers import wait_for
from tests.support.gorush import Gorush

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
