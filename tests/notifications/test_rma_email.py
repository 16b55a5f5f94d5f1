"""The customer's email of a return authorisation, composed at send time: the number, the instructions
(escaped in HTML), the label read from storage; nothing once the claim is gone."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from sqlalchemy import delete, select

from app.models import Claim, ReturnAuthorization
from app.notifications.rma_email import rma_email
from tests.factories.claims import attachment
from tests.returns.support import claim_in_progress, issue
from tests.support.pdf import PDF_BYTES


async def _compose(app: FastAPI, claim_id: int, recipient_id: int) -> object:
    async with app.state.sessionmaker() as session:
        payload = {"claimId": claim_id, "recipientId": recipient_id}
        return await rma_email(session, payload, app.state.settings, app.state.storage)


async def test_it_tells_the_number_and_instructions_and_attaches_the_label(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_in_progress(app, client)
    label = attachment(PDF_BYTES, "label.pdf", "application/pdf")
    rma = (
        await issue(app, client, cast, cast.agent, instructions="Use <b>tape</b> & a box", label=label)
    ).json()

    email = await _compose(app, cast.claim_id, cast.customer.id)

    assert email is not None
    assert email.to == cast.customer.email and email.claim_id == cast.claim_id
    assert rma["number"] in email.subject and "Washer" in email.subject
    assert "Use <b>tape</b> & a box" in email.text
    assert "Use &lt;b&gt;tape&lt;/b&gt; &amp; a box" in email.html
    [attached] = email.attachments
    assert (attached.filename, attached.mime_type, attached.data) == (
        "label.pdf",
        "application/pdf",
        PDF_BYTES,
    )


async def test_a_label_gone_from_storage_leaves_the_email_without_it(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_in_progress(app, client)
    await issue(app, client, cast, cast.agent, label=attachment(PDF_BYTES, "label.pdf", "application/pdf"))
    async with app.state.sessionmaker() as session:
        key = await session.scalar(select(ReturnAuthorization.label_key))
    app.state.storage.discard([key])

    email = await _compose(app, cast.claim_id, cast.customer.id)

    assert email is not None and email.attachments == [] and "Attached" not in email.text


async def test_nothing_is_sent_once_the_claim_is_gone(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_in_progress(app, client)
    await issue(app, client, cast, cast.agent)
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(delete(Claim).where(Claim.id == cast.claim_id))

    assert await _compose(app, cast.claim_id, cast.customer.id) is None
