"""Emails that arrive at a real SMTP server (aiosmtpd on 127.0.0.1)."""

from __future__ import annotations

from email.message import EmailMessage

from fastapi import FastAPI

from app.outbox.worker import OutboxWorker
from tests.factories.notifications import notify_message, notify_status, outbox_rows
from tests.notifications.support import (
    claim_with_message,
)
from tests.support.pdf import PDF_BYTES
from tests.support.smtp import Inbox


def _parts(message: EmailMessage) -> tuple[str, str]:
    text = message.get_body(preferencelist=("plain",))
    html = message.get_body(preferencelist=("html",))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


async def test_new_message_email_has_headers_parts_link_and_attachment(
    app: FastAPI, worker: OutboxWorker, inbox: Inbox
) -> None:
    customer, _supplier, claim, message = await claim_with_message(app, body="Is it <b>broken</b> & cold?")
    await notify_message(app, message, [customer])

    await worker.run_until_idle()

    [email] = inbox.to("ann@example.com")
    assert email["Subject"] == f"New message on your claim #{claim.id} \u2013 Espresso machine"
    assert email["From"] == "Warranty <notifications@warranty.local>"
    assert email["Reply-To"] == f"claim+{claim.id}@warranty.local"
    assert email["Auto-Submitted"] == "auto-generated"
    assert email["Message-ID"].endswith("@warranty.local>")
    assert email["In-Reply-To"] == email["References"] == f"<claim-{claim.id}@warranty.local>"
    text, html = _parts(email)
    link = f"http://localhost:3000/claims/{claim.id}"
    assert "Is it <b>broken</b> & cold?" in text and link in text and "Sam <Support>" in text
    assert "Is it &lt;b&gt;broken&lt;/b&gt; &amp; cold?" in html and f'href="{link}"' in html
    assert "Sam &lt;Support&gt;" in html and "<b>broken</b>" not in html
    [attachment] = list(email.iter_attachments())
    assert attachment.get_filename() == "invoice.pdf"
    assert attachment.get_content_type() == "application/pdf"
    assert attachment.get_content() == PDF_BYTES
    [row] = await outbox_rows(app, "email.claim_message")
    assert row.status == "done" and row.done_at is not None and row.attempts == 1


async def test_emails_of_one_claim_thread_together(app: FastAPI, worker: OutboxWorker, inbox: Inbox) -> None:
    customer, _supplier, claim, message = await claim_with_message(app)
    await notify_message(app, message, [customer])
    claim.status = "in_progress"
    await notify_status(app, claim, [customer])

    await worker.run_until_idle()

    first, second = inbox.to("ann@example.com")
    assert first["Message-ID"] != second["Message-ID"]
    assert first["In-Reply-To"] == second["In-Reply-To"] == f"<claim-{claim.id}@warranty.local>"
    assert first["References"] == second["References"]
    status = next(email for email in (first, second) if "is now" in email["Subject"])
    assert status["Subject"] == f"Your claim #{claim.id} \u2013 Espresso machine is now In progress"
    assert status["Reply-To"] == f"claim+{claim.id}@warranty.local"
    text, html = _parts(status)
    assert "In progress" in text and f"/claims/{claim.id}" in text and "In progress" in html
