"""Emails that arrive at a real SMTP server (aiosmtpd on 127.0.0.1)."""

from __future__ import annotations

from email.message import EmailMessage

from fastapi import FastAPI

from app.models import Claim, Message, User
from app.outbox.worker import OutboxWorker
from tests.factories.claims import create_claim, create_message
from tests.factories.notifications import notify_message, notify_status, outbox_rows
from tests.factories.products import create_product
from tests.factories.users import create_supplier, create_user
from tests.support.pdf import PDF_BYTES
from tests.support.smtp import Inbox


async def claim_with_message(
    app: FastAPI,
    body: str = "Hello",
    *,
    names: tuple[str, str, str] = ("Ann", "Sam <Support>", "Espresso machine"),
    attachment_name: str = "invoice.pdf",
) -> tuple[User, User, Claim, Message]:
    """Ann's claim on her product with Sam as supplier, and Sam's message with a PDF; `names` are the
    customer's, the supplier's and the product's."""
    customer = await create_user(app, email="ann@example.com", name=names[0])
    supplier = await create_supplier(app, email="sam@example.com", name=names[1])
    product = await create_product(app, customer, name=names[2])
    claim = await create_claim(app, product, supplier=supplier)
    key = await app.state.storage.save("attachments", PDF_BYTES, "pdf")
    message = await create_message(
        app,
        claim,
        supplier,
        body=body,
        attachment_name=attachment_name,
        attachment_mime="application/pdf",
        attachment_size=len(PDF_BYTES),
        attachment_key=key,
    )
    return customer, supplier, claim, message


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


async def test_no_email_for_a_recipient_who_turned_email_off(
    app: FastAPI, worker: OutboxWorker, inbox: Inbox
) -> None:
    quiet = await create_user(app, email="quiet@example.com", email_notifications_enabled=False)
    loud = await create_user(app, email="loud@example.com")
    product = await create_product(app, quiet)
    claim = await create_claim(app, product, supplier=loud)
    message = await create_message(app, claim, loud)
    await notify_message(app, message, [quiet])

    await worker.run_until_idle()

    assert inbox.messages == []
    assert [row.kind for row in await outbox_rows(app)] == ["push.claim_message"]


async def test_a_message_deleted_before_sending_is_skipped(
    app: FastAPI, worker: OutboxWorker, inbox: Inbox
) -> None:
    customer, _supplier, _claim, message = await claim_with_message(app)
    await notify_message(app, message, [customer])
    async with app.state.sessionmaker() as session, session.begin():
        await session.delete(await session.get(Message, message.id))

    await worker.run_until_idle()

    assert inbox.messages == []
    assert {row.status for row in await outbox_rows(app)} == {"done"}
