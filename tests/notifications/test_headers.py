"""Email headers (12.7): what users wrote (product names, user names, file names) never stops an email.
Emails go through the outbox worker to a real SMTP server (aiosmtpd on 127.0.0.1)."""

from __future__ import annotations

from fastapi import FastAPI

from app.notifications.headers import header_value
from app.outbox.worker import OutboxWorker
from tests.factories.notifications import notify_message, notify_status, outbox_rows
from tests.notifications.support import (
    claim_with_message,
)
from tests.support.pdf import PDF_BYTES
from tests.support.smtp import Inbox

# Each of these made Python's email package refuse the header, or reached the wire raw.
BREAKS = "\r\n", "\r", "\n", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1b", "\x7f", "\x9f"


def _hostile(text: str, database_url: str) -> str:
    nul = "" if database_url.startswith("postgresql") else "\x00"  # PostgreSQL text cannot hold NUL at all
    return f"{text}\r\nBcc: evil@example.com{nul}" + "x".join(BREAKS) + " end"


async def test_control_characters_in_names_never_stop_an_email(
    app: FastAPI, worker: OutboxWorker, inbox: Inbox, database_url: str
) -> None:
    product_name = _hostile("Espresso", database_url)
    customer, _supplier, claim, message = await claim_with_message(
        app,
        _hostile("Hello", database_url),
        names=(
            _hostile("Ann", database_url),
            _hostile("Sam", database_url),
            product_name,
        ),
        attachment_name=_hostile("invoice", database_url) + ".pdf",
    )
    await notify_message(app, message, [customer])
    claim.status = "in_progress"
    await notify_status(app, claim, [customer])

    await worker.run_until_idle()

    rows = await outbox_rows(app)
    assert [(row.status, row.attempts) for row in rows if row.kind.startswith("email.")] == [("done", 1)] * 2
    emails = inbox.to("ann@example.com")
    assert len(emails) == 2
    name = header_value(product_name)
    assert name.startswith("Espresso Bcc: evil@example.com") and name.endswith(" end")
    assert {email["Subject"] for email in emails} == {
        f"New message on your claim #{claim.id} \u2013 {name}",
        f"Your claim #{claim.id} \u2013 {name} is now In progress",
    }
    for email in emails:
        assert email["Bcc"] is None
        assert all(not set(value) & set("".join(BREAKS) + "\x00") for _key, value in email.items())
    [attachment] = [part for email in emails for part in email.iter_attachments()]
    assert attachment.get_filename() == header_value(message.attachment_name or "")
    assert attachment.get_content() == PDF_BYTES
    for envelope in inbox.envelopes:
        assert envelope.rcpt_tos == ["ann@example.com"]  # nobody added by a header


def test_header_values_are_one_clean_line() -> None:
    assert header_value("a\r\n b\u2028\u2029c\x00\x85d  e\t") == "a b c d e"
    assert header_value("Caf\u00e9 \u2013 \U0001f600") == "Caf\u00e9 \u2013 \U0001f600"
    assert header_value("") == ""
