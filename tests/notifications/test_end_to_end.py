"""Through the claims and messages API, to the inbox and the push gateway."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from app.outbox.worker import OutboxWorker
from tests.factories.claims import attachment, claim_cast
from tests.factories.users import auth_headers
from tests.support.gorush import Gorush
from tests.support.pdf import PDF_BYTES
from tests.support.smtp import Inbox


async def test_a_message_and_a_status_change_reach_the_other_party(
    app: FastAPI, client: httpx.AsyncClient, inbox: Inbox, gorush: Gorush, push_worker: OutboxWorker
) -> None:
    cast = await claim_cast(app)
    customer, supplier = auth_headers(app, cast.customer), auth_headers(app, cast.supplier)
    await client.post("/api/device-tokens", json={"token": "ann-phone", "platform": "ios"}, headers=customer)

    sent = await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={
            "message": "Please send the receipt.",
            "attachment": attachment(PDF_BYTES, "label.pdf", "application/pdf"),
        },
        headers=supplier,
    )
    moved = await client.post(
        f"/api/claims/{cast.claim.id}/status", json={"status": "in_progress"}, headers=supplier
    )
    assert sent.status_code == 201 and moved.status_code == 200
    await push_worker.run_until_idle()

    emails = inbox.to(cast.customer.email)
    assert len(emails) == 2 and inbox.to(cast.supplier.email) == []
    message = next(email for email in emails if email["Subject"].startswith("New message"))
    status = next(email for email in emails if "is now In progress" in email["Subject"])
    assert cast.product.name in message["Subject"] and cast.product.name in status["Subject"]
    assert message["In-Reply-To"] == status["In-Reply-To"] == f"<claim-{cast.claim.id}@warranty.local>"
    [label] = list(message.iter_attachments())
    assert label.get_filename() == "label.pdf" and label.get_content() == PDF_BYTES
    gorush.assert_all_accepted()
    pushes = gorush.received("ann-phone")
    assert sorted(push["type"] for push in pushes) == ["new_message", "status_update"]
    assert {push["aps"]["thread-id"] for push in pushes} == {f"claim-{cast.claim.id}"}
