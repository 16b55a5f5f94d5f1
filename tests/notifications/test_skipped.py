"""12.2: a notification sent after its recipient left the claim is not sent; it ends `skipped`."""

from __future__ import annotations

from datetime import timedelta

import httpx
from fastapi import FastAPI
from sqlalchemy import update

from app.core.clock import frozen_time, utc_now
from app.models import Claim
from app.outbox.worker import OutboxWorker
from tests.factories.claims import create_claim, create_message
from tests.factories.notifications import notify_message, notify_status, outbox_rows
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.support.smtp import Inbox


async def test_a_retry_after_the_recipient_left_the_claim_is_skipped(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    customer = await create_user(app, email="ann@example.com")
    supplier = await create_supplier(app, email="sam@example.com")
    claim = await create_claim(app, await create_product(app, customer), supplier=supplier)
    message = await create_message(app, claim, customer, body="Any news?")
    await notify_message(app, message, [supplier])
    await notify_status(app, claim, [supplier, customer])
    inbox.stop()
    await worker.run_until_idle()  # every first attempt fails: the mail server is down
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(Claim).where(Claim.id == claim.id).values(supplier_id=None))

    inbox.start()
    with frozen_time(utc_now() + timedelta(hours=2)):
        await worker.run_until_idle()

    assert [email["To"] for email in inbox.messages] == ["ann@example.com"]
    by_recipient = {(row.kind, row.payload["recipientId"]): row for row in await outbox_rows(app)}
    assert by_recipient[("email.claim_status", customer.id)].status == "done"
    for kind in ("email.claim_message", "email.claim_status"):  # (push went out at once: log backend)
        row = by_recipient[(kind, supplier.id)]
        assert row.status == "skipped" and "no longer a participant" in (row.last_error or ""), kind
    admin = await create_admin(app)
    listed = await client.get("/api/admin/notifications?status=skipped", headers=auth_headers(app, admin))
    assert listed.status_code == 200 and listed.json()["meta"]["total"] == 2
