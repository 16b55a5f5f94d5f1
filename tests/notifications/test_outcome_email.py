"""The status email of a resolution tells its outcome, note and new warranty (contract 15.5)."""

from __future__ import annotations

from email.message import EmailMessage

import httpx
from fastapi import FastAPI

from app.outbox.worker import OutboxWorker
from tests.factories.outcomes import extension_from_today, resolved_cast
from tests.support.smtp import Inbox


def _parts(email: EmailMessage) -> tuple[str, str]:
    text, html = email.get_body(preferencelist=("plain",)), email.get_body(preferencelist=("html",))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


async def test_the_status_email_tells_the_outcome(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    await resolved_cast(app, client)
    extension = extension_from_today()

    await worker.run_until_idle()

    [email] = inbox.to("ann@example.com")
    assert email["Subject"].endswith("is now Resolved")
    text, html = _parts(email)
    assert "Outcome: Replaced" in text and "Note: A new <pump> & seal." in text
    assert f"New warranty: 6 months, from {extension['startsOn']} to {extension['endsOn']}" in text
    assert "Outcome: Replaced" in html and "A new &lt;pump&gt; &amp; seal." in html
    assert f"to {extension['endsOn']}" in html


async def test_a_resolution_without_an_outcome_names_none(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    await resolved_cast(app, client, {"status": "resolved"})

    await worker.run_until_idle()

    [email] = inbox.to("ann@example.com")
    text, html = _parts(email)
    assert "Resolved" in text and "Outcome" not in text and "Outcome" not in html
