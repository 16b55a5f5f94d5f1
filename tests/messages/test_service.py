"""Posting a message (app/messages/service.py), the send endpoint's and the inbound email's one way: what is
checked (a closed claim, the length, blank text, an attachment's bytes against its name and type), what a
sent message records in the same transaction (event, notifications, attachment file), and that nothing
of it stays when the transaction fails or a close commits first."""

from __future__ import annotations

import asyncio
import base64

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, text, update
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from app.core.clock import frozen_time
from app.models import CacheInvalidation, Claim
from tests.factories.claims import attachment, claim_cast
from tests.factories.users import auth_headers
from tests.helpers import assert_error, failing_statement, wait_for
from tests.messages.support import SENT_AT, SENT_Z, events, outbox, stored_messages
from tests.support.images import image_bytes
from tests.support.pdf import PDF_BYTES


async def test_a_message_records_its_event_and_notifies_the_other_party(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    headers = auth_headers(app, cast.supplier)
    with frozen_time(SENT_AT):
        response = await client.post(
            f"/api/claims/{cast.claim.id}/messages", json={"message": "Part shipped."}, headers=headers
        )
    message_id = int(response.json()["id"])

    assert await events(app) == [
        (
            f"claims/{cast.claim.id}/messages",
            {
                "type": "new_message",
                "message": {
                    "id": str(message_id),
                    "senderId": str(cast.supplier.id),
                    "senderName": "Sam Supplier",
                    "message": "Part shipped.",
                    "createdAt": SENT_Z,
                },
            },
        )
    ]
    assert await outbox(app) == [
        (
            "email.claim_message",
            {"messageId": message_id, "claimId": cast.claim.id, "recipientId": cast.customer.id},
        ),
        (
            "push.claim_message",
            {"messageId": message_id, "claimId": cast.claim.id, "recipientId": cast.customer.id},
        ),
    ]


async def test_notifications_follow_the_recipients_settings(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app, email_notifications_enabled=False)
    response = await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={"message": "Hi"},
        headers=auth_headers(app, cast.supplier),
    )
    message_id = int(response.json()["id"])
    assert await outbox(app) == [
        (
            "push.claim_message",
            {"messageId": message_id, "claimId": cast.claim.id, "recipientId": cast.customer.id},
        )
    ]


async def test_an_admin_posting_notifies_both_participants(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    response = await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={"message": "Support here."},
        headers=auth_headers(app, cast.admin),
    )
    assert response.status_code == 201
    message_id = int(response.json()["id"])
    kinds = [(kind, payload["recipientId"]) for kind, payload in await outbox(app)]
    assert sorted(kinds) == sorted(
        (kind, user.id)
        for kind in ("email.claim_message", "push.claim_message")
        for user in (cast.customer, cast.supplier)
    )
    assert all(payload["messageId"] == message_id for _, payload in await outbox(app))


async def test_a_closed_claim_takes_no_message(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app, status="closed")
    response = await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={"message": "Hi"},
        headers=auth_headers(app, cast.customer),
    )
    assert_error(response, 409, "CLAIM_CLOSED")
    assert await stored_messages(app) == [] and await events(app) == [] and await outbox(app) == []


async def test_ten_thousand_characters_are_fine(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    response = await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={"message": "x" * 10_000},
        headers=auth_headers(app, cast.customer),
    )
    assert response.status_code == 201


@pytest.mark.parametrize(
    "upload",
    [
        attachment(image_bytes(), "photo.jpg", "image/jpeg"),  # name and type say jpg, bytes are png
        attachment(image_bytes(), "photo.png", "image/jpeg"),  # type lies
        attachment(image_bytes(), "photo.pdf", "image/png"),  # name lies
        attachment(b"MZ\x90\x00 an executable", "tool.png", "image/png"),  # not an allowed kind
        attachment(b"\x89PNG\r\n\x1a\n but not an image", "fake.png", "image/png"),  # header only
        {
            "dataUrl": "data:application/pdf;base64," + base64.b64encode(image_bytes()).decode(),
            "fileName": "a.png",
        },
    ],
)
async def test_lies_about_the_type_are_415(
    app: FastAPI, client: httpx.AsyncClient, upload: dict[str, object]
) -> None:
    cast = await claim_cast(app)
    response = await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={"attachment": upload},
        headers=auth_headers(app, cast.customer),
    )
    assert_error(response, 415, "UNSUPPORTED_MEDIA_TYPE")
    assert await stored_messages(app) == []


async def test_a_failed_send_records_nothing(app: FastAPI, client: httpx.AsyncClient) -> None:
    """The database fails after the message and its event are written (at the outbox insert): a 500, and
    no message, no event, no notification, no cache invalidation, no attachment file is kept."""
    cast = await claim_cast(app)

    with failing_statement(app, "INSERT INTO outbox "):
        response = await client.post(
            f"/api/claims/{cast.claim.id}/messages",
            json={"message": "Hi", "attachment": attachment(PDF_BYTES, "bill.pdf", "application/pdf")},
            headers=auth_headers(app, cast.customer),
        )

    assert_error(response, 500, "INTERNAL_ERROR")
    assert await stored_messages(app) == [] and await events(app) == [] and await outbox(app) == []
    async with app.state.sessionmaker() as session:
        assert list(await session.scalars(select(CacheInvalidation))) == []
    assert list(app.state.storage.root.rglob("*.pdf")) == []


async def test_a_sent_attachment_file_is_kept(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    body = {"attachment": attachment(PDF_BYTES, "bill.pdf", "application/pdf")}
    response = await client.post(
        f"/api/claims/{cast.claim.id}/messages", json=body, headers=auth_headers(app, cast.customer)
    )
    assert response.status_code == 201
    [stored] = app.state.storage.root.rglob("*.pdf")
    assert stored.read_bytes() == PDF_BYTES


@pytest.mark.postgres_only
async def test_a_close_committing_while_a_message_is_written_keeps_the_message_out(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """The claim's row is locked last: a message written while a close holds the row waits for it, then
    sees the claim closed and leaves nothing behind."""
    cast = await claim_cast(app, status="resolved")
    closer = create_async_engine(app.state.settings.database_url, poolclass=NullPool)
    async with closer.connect() as closing:
        await closing.execute(update(Claim).where(Claim.id == cast.claim.id).values(status="closed"))
        sending = asyncio.create_task(
            client.post(
                f"/api/claims/{cast.claim.id}/messages",
                json={"message": "Hi"},
                headers=auth_headers(app, cast.customer),
            )
        )

        async def message_waits_for_the_row() -> bool:
            async with closer.connect() as probe:
                waiting = await probe.scalar(
                    text(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                        " AND wait_event_type = 'Lock'"
                        " AND query LIKE 'SELECT claims.status%FOR NO KEY UPDATE'"
                    )
                )
            return bool(waiting)

        await wait_for(message_waits_for_the_row)
        await closing.commit()
    await closer.dispose()

    assert_error(await sending, 409, "CLAIM_CLOSED")
    assert await stored_messages(app) == [] and await events(app) == [] and await outbox(app) == []


@pytest.mark.postgres_only
async def test_messages_posted_at_once_in_one_claim_all_land(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app, status="in_progress")
    headers = auth_headers(app, cast.customer)
    path = f"/api/claims/{cast.claim.id}/messages"

    responses = await asyncio.gather(
        *(client.post(path, json={"message": f"m{n}"}, headers=headers) for n in range(8))
    )

    assert [response.status_code for response in responses] == [201] * 8
    assert sorted(message.body for message in await stored_messages(app)) == [f"m{n}" for n in range(8)]
