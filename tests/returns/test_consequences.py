"""What issuing a return authorisation causes, end to end: the customer's email over SMTP with the number,
the instructions and the PDF label attached; a signed `claim.rma_issued` webhook at a real receiver; an
`rma_issued` event on the claim's status topic."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, update

from app.models import Event, User
from app.outbox.worker import OutboxWorker
from app.realtime.publishing import status_topic
from tests.factories.claims import attachment
from tests.factories.webhooks import register, verified
from tests.returns.support import claim_in_progress, issue
from tests.support.pdf import PDF_BYTES
from tests.support.smtp import Inbox
from tests.webhooks.receiver import Receiver, start_receiver

pytestmark = pytest.mark.settings(webhook_allow_private=True)
INSTRUCTIONS = "Pack it in its box.\nDrop it at any post office."


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = start_receiver()
    yield running
    running.stop()


async def test_the_customer_is_emailed_the_number_instructions_and_label(
    app: FastAPI, client: httpx.AsyncClient, inbox: Inbox, worker: OutboxWorker
) -> None:
    cast = await claim_in_progress(app, client)
    async with app.state.sessionmaker() as session, session.begin():  # not news: a document they need
        await session.execute(
            update(User).where(User.id == cast.customer.id).values(email_notifications_enabled=False)
        )
    await worker.run_until_idle()
    inbox.envelopes.clear()

    label = attachment(PDF_BYTES, "return-label.pdf", "application/pdf")
    rma = (await issue(app, client, cast, cast.agent, instructions=INSTRUCTIONS, label=label)).json()
    await worker.run_until_idle()

    [email] = inbox.to(cast.customer.email)
    assert rma["number"] in email["Subject"] and f"#{cast.claim_id}" in email["Subject"]
    text = email.get_body(("plain",)).get_content().replace("\r\n", "\n")
    assert rma["number"] in text and INSTRUCTIONS in text
    html = email.get_body(("html",)).get_content()
    assert rma["number"] in html and "Drop it at any post office." in html
    [attached] = list(email.iter_attachments())
    assert attached.get_content_type() == "application/pdf"
    assert attached.get_filename() == "return-label.pdf" and attached.get_content() == PDF_BYTES
    assert email["In-Reply-To"] == f"<claim-{cast.claim_id}@warranty.local>"
    assert [message["To"] for message in inbox.messages] == [cast.customer.email]  # the customer alone


async def test_without_a_label_the_email_has_no_attachment(
    app: FastAPI, client: httpx.AsyncClient, inbox: Inbox, worker: OutboxWorker
) -> None:
    cast = await claim_in_progress(app, client)
    await worker.run_until_idle()
    inbox.envelopes.clear()

    rma = (await issue(app, client, cast, cast.manager)).json()
    await worker.run_until_idle()

    [email] = inbox.to(cast.customer.email)
    assert rma["number"] in email.get_body(("plain",)).get_content()
    assert list(email.iter_attachments()) == []


async def test_a_signed_webhook_names_the_claim_and_the_rma(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver, worker: OutboxWorker
) -> None:
    endpoint = await register(app, client, receiver.url("/ok"), events=["claim.rma_issued"])
    cast = await claim_in_progress(app, client)

    rma = (await issue(app, client, cast, cast.agent, instructions=INSTRUCTIONS)).json()
    await worker.run_until_idle()

    [arrived] = [verified(endpoint["secret"], item) for item in receiver.at("/ok")]
    assert arrived["type"] == "claim.rma_issued"
    data = arrived["data"]
    assert data["rma"] == rma and data["actorId"] == cast.agent.id
    assert data["claim"]["id"] == cast.claim_id and data["claim"]["organizationId"] == cast.organization.id
    assert data["claim"]["status"] == "in_progress"


async def test_the_claims_status_topic_gets_an_event(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_in_progress(app, client)

    rma = (await issue(app, client, cast, cast.agent)).json()

    async with app.state.sessionmaker() as session:
        payloads = list(
            await session.scalars(select(Event.payload).where(Event.topic == status_topic(cast.claim_id)))
        )
    [event] = [json.loads(payload) for payload in payloads if "rma_issued" in payload]
    assert event == {
        "type": "rma_issued",
        "claimId": cast.claim_id,
        "number": rma["number"],
        "issuedAt": rma["issuedAt"].replace("+00:00", "Z"),
    }


async def test_a_refused_issue_causes_nothing(
    app: FastAPI, client: httpx.AsyncClient, inbox: Inbox, worker: OutboxWorker
) -> None:
    cast = await claim_in_progress(app, client)
    await worker.run_until_idle()
    inbox.envelopes.clear()

    await issue(app, client, cast, cast.agent)
    await issue(app, client, cast, cast.agent)  # 409 RMA_EXISTS
    await worker.run_until_idle()

    assert len(inbox.to(cast.customer.email)) == 1
