"""Who hears of a routed claim on its supplier side (contract 17.7): while no agent is assigned, every
member of its organisation (by their settings, unless they muted it) and the organisation's own address;
once an agent is, that agent alone. Queued notifications that no longer concern their recipient are
skipped when sent."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import update

from app.models import Claim, Organization, User
from app.models.enums import OutboxState
from app.notifications.email import SmtpSender
from app.worker_assembly import build_worker
from tests.claims.routed import Routed, routed_claim
from tests.factories.notifications import outbox_rows
from tests.factories.users import auth_headers
from tests.support.smtp import SMTP_URL, Inbox

ACME = "queue@acme.example"


async def _post(client: httpx.AsyncClient, app: FastAPI, cast: Routed, user: User, text: str) -> None:
    response = await client.post(
        f"{cast.path}/messages", json={"message": text}, headers=auth_headers(app, user)
    )
    assert response.status_code == 201, response.text


def _to(rows: list[Any]) -> set[Any]:
    return {row.payload.get("recipientId") or row.payload["recipientEmail"] for row in rows}


async def _settings(app: FastAPI, user: User, **values: bool) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(User).where(User.id == user.id).values(**values))


async def test_while_unassigned_every_member_and_the_organizations_address_hear(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client, email=ACME)
    await _settings(app, cast.other_agent, email_notifications_enabled=False)
    await _settings(app, cast.manager, notifications_enabled=False)

    await _post(client, app, cast, cast.customer, "Any news?")

    emails = await outbox_rows(app, "email.claim_message")
    pushes = await outbox_rows(app, "push.claim_message")
    assert _to(emails) == {cast.manager.id, cast.agent.id, ACME}
    assert _to(pushes) == {cast.agent.id, cast.other_agent.id}
    [address] = [row.payload for row in emails if "recipientEmail" in row.payload]
    assert address == {
        "messageId": address["messageId"],
        "claimId": cast.claim_id,
        "recipientEmail": ACME,
        "organizationId": cast.organization.id,
    }


async def test_once_assigned_only_the_agent_hears(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client, email=ACME)
    await _post(client, app, cast, cast.agent, "We are on it.")  # takes it
    assert _to(await outbox_rows(app, "email.claim_message")) == {cast.customer.id}

    await _post(client, app, cast, cast.customer, "Thanks!")

    latest = [row for row in await outbox_rows(app, "email.claim_message")][1:]
    assert _to(latest) == {cast.agent.id}
    assert _to(await outbox_rows(app, "push.claim_message")) == {cast.customer.id, cast.agent.id}


async def test_a_customers_status_change_tells_the_organization_too(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client, email=ACME)
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(Claim).where(Claim.id == cast.claim_id).values(status="resolved"))

    closed = await client.post(f"{cast.path}/close", headers=auth_headers(app, cast.customer))

    assert closed.status_code == 200, closed.text
    rows = await outbox_rows(app, "email.claim_status")
    assert _to(rows) == {cast.manager.id, cast.agent.id, cast.other_agent.id, ACME}
    assert {row.payload["status"] for row in rows} == {"closed"}


async def test_a_member_who_muted_the_claim_hears_nothing(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client)  # no address of its own
    muted = await client.post(f"{cast.path}/mute", headers=auth_headers(app, cast.manager))
    assert muted.status_code == 200

    await _post(client, app, cast, cast.customer, "Hello?")

    assert _to(await outbox_rows(app, "email.claim_message")) == {cast.agent.id, cast.other_agent.id}


async def test_an_address_a_member_is_emailed_at_is_emailed_once(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(
            update(Organization)
            .where(Organization.id == cast.organization.id)
            .values(email=cast.manager.email)
        )

    await _post(client, app, cast, cast.customer, "Hello?")

    assert _to(await outbox_rows(app, "email.claim_message")) == {
        cast.manager.id,
        cast.agent.id,
        cast.other_agent.id,
    }


async def test_the_emails_arrive_and_a_claim_taken_meanwhile_skips_the_rest(
    app: FastAPI, client: httpx.AsyncClient, inbox: Inbox
) -> None:
    cast = await routed_claim(app, client, email=ACME)
    worker = build_worker(
        app.state.settings, app.state.sessionmaker, app.state.storage, mailer=SmtpSender(SMTP_URL, timeout=5)
    )

    await _post(client, app, cast, cast.customer, "First question")
    await worker.run_until_idle()
    [to_acme] = inbox.to(ACME)
    assert "First question" in to_acme.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert {message["To"] for message in inbox.messages} == {
        ACME,
        cast.manager.email,
        cast.agent.email,
        cast.other_agent.email,
    }

    await _post(client, app, cast, cast.customer, "Second question")
    taken = await client.put(
        f"{cast.path}/supplier", json={"supplierId": cast.agent.id}, headers=auth_headers(app, cast.agent)
    )
    assert taken.status_code == 200
    await worker.run_until_idle()

    second = [message["To"] for message in inbox.messages][4:]
    assert second == [cast.agent.email]  # the others' were queued before the agent took it
    skipped = [
        row for row in await outbox_rows(app, "email.claim_message") if row.status == OutboxState.SKIPPED
    ]
    assert _to(skipped) == {cast.manager.id, cast.other_agent.id, ACME}
