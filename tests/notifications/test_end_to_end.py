"""Through the claims and messages API, to the inbox and the push gateway."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from tests.factories.claims import PDF_BYTES, attachment, claim_cast
from tests.factories.users import auth_headers
from tests.notifications.conftest import push_worker
from tests.notifications.servers import Gorush, Inbox


async def test_a_message_and_a_status_change_reach_the_other_party(
    app: FastAPI, client: httpx.AsyncClient, inbox: Inbox, gorush: Gorush
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
    await push_worker(app, gorush).run_until_idle()

    emails = inbox.to(cast.customer.email)
    assert len(emails) == 2 and inbox.to(cast.supplier.email) == []
    message = next(email for email in emails if email["Subject"].startswith("New message"))
    status = next(email for email in emails if "is now In progress" in email["Subject"])
    assert cast.product.name in message["Subject"] and cast.product.name in status["Subject"]
    assert message["In-Reply-To"] == status["In-Reply-To"] == f"<claim-{cast.claim.id}@warranty.local>"
    [label] = list(message.iter_attachments())
    assert label.get_filename() == "label.pdf" and label.get_content() == PDF_BYTES
    pushes = [request["body"]["notifications"][0] for request in gorush.requests]
    assert sorted(push["data"]["type"] for push in pushes) == ["new_message", "status_update"]
    assert all(push["tokens"] == ["ann-phone"] for push in pushes)
