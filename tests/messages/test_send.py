"""Sending messages: who may, what is checked, and what a sent message records (event, outbox)."""

from __future__ import annotations

import asyncio
import base64
import json
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, text, update
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from app.core.clock import frozen_time
from app.models import CacheInvalidation, Claim, Event, Message, OutboxItem
from tests.factories.claims import attachment, claim_cast
from tests.factories.users import auth_headers
from tests.helpers import assert_error, failing_statement, wait_for
from tests.support.images import image_bytes
from tests.support.pdf import PDF_BYTES

# Near the real time: access tokens are checked against the wall clock too.
SENT_AT = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=10)
SENT_ISO = SENT_AT.isoformat()
SENT_Z = SENT_AT.strftime("%Y-%m-%dT%H:%M:%SZ")


async def _events(app: FastAPI) -> list[tuple[str, dict[str, object]]]:
    async with app.state.sessionmaker() as session:
        rows = await session.scalars(select(Event).order_by(Event.id))
        return [(row.topic, json.loads(row.payload)) for row in rows]


async def _outbox(app: FastAPI) -> list[tuple[str, dict[str, object]]]:
    async with app.state.sessionmaker() as session:
        rows = await session.scalars(select(OutboxItem).order_by(OutboxItem.id))
        return sorted(
            ((row.kind, row.payload) for row in rows), key=lambda item: (item[0], sorted(item[1].items()))
        )


async def _messages(app: FastAPI) -> list[Message]:
    async with app.state.sessionmaker() as session:
        return list(await session.scalars(select(Message).order_by(Message.id)))


async def test_customer_sends_a_message(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    headers = auth_headers(app, cast.customer)
    with frozen_time(SENT_AT):
        response = await client.post(
            f"/api/claims/{cast.claim.id}/messages", json={"message": "  It still leaks.  "}, headers=headers
        )

    assert response.status_code == 201, response.text
    body = response.json()
    [stored] = await _messages(app)
    assert body == {
        "id": str(stored.id),
        "senderId": str(cast.customer.id),
        "senderName": "Ann Customer",
        "senderEmail": cast.customer.email,
        "message": "It still leaks.",
        "createdAt": SENT_ISO,
        "isRead": False,
        "readAt": None,
    }
    assert response.headers["location"] == f"/api/claims/{cast.claim.id}/messages/{stored.id}"
    one = await client.get(response.headers["location"], headers=auth_headers(app, cast.customer))
    assert one.json()["message"] == "It still leaks."


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

    assert await _events(app) == [
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
    assert await _outbox(app) == [
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
    assert await _outbox(app) == [
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
    kinds = [(kind, payload["recipientId"]) for kind, payload in await _outbox(app)]
    assert sorted(kinds) == sorted(
        (kind, user.id)
        for kind in ("email.claim_message", "push.claim_message")
        for user in (cast.customer, cast.supplier)
    )
    assert all(payload["messageId"] == message_id for _, payload in await _outbox(app))


async def test_outsiders_cannot_send_and_learn_nothing(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    for user in (cast.outsider, cast.other_supplier):
        response = await client.post(
            f"/api/claims/{cast.claim.id}/messages", json={"message": "Hi"}, headers=auth_headers(app, user)
        )
        assert_error(response, 404, "NOT_FOUND")
    missing = await client.post(
        "/api/claims/999999/messages", json={"message": "Hi"}, headers=auth_headers(app, cast.outsider)
    )
    assert missing.json() == response.json()
    assert await _messages(app) == [] and await _events(app) == [] and await _outbox(app) == []


async def test_a_closed_claim_takes_no_message(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app, status="closed")
    response = await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={"message": "Hi"},
        headers=auth_headers(app, cast.customer),
    )
    assert_error(response, 409, "CLAIM_CLOSED")
    assert await _messages(app) == [] and await _events(app) == [] and await _outbox(app) == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "message"),
        ({"message": None, "attachment": None}, "message"),
        ({"message": "   "}, "message"),
        ({"message": "x" * 10_001}, "message"),
        ({"message": "hi", "colour": "red"}, "colour"),
        ({"attachment": {"dataUrl": "not base64!", "fileName": "a.png"}}, "attachment.dataUrl"),
        ({"attachment": {"dataUrl": "data:image/png,abc", "fileName": "a.png"}}, "attachment.dataUrl"),
        ({"attachment": attachment(image_bytes(), "a.png", "image/png", size=3)}, "attachment.size"),
    ],
)
async def test_invalid_messages_are_400(
    app: FastAPI, client: httpx.AsyncClient, body: dict[str, object], field: str
) -> None:
    cast = await claim_cast(app)
    response = await client.post(
        f"/api/claims/{cast.claim.id}/messages", json=body, headers=auth_headers(app, cast.customer)
    )
    error = assert_error(response, 400, "VALIDATION_FAILED")
    assert field in error["details"]["fields"], error
    assert await _messages(app) == [] and await _events(app) == []


async def test_ten_thousand_characters_are_fine(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    response = await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={"message": "x" * 10_000},
        headers=auth_headers(app, cast.customer),
    )
    assert response.status_code == 201


@pytest.mark.parametrize(
    ("data", "name", "mime"),
    [
        (image_bytes(), "photo.png", "image/png"),
        (image_bytes("JPEG"), "Foto ä.JPEG", "image/jpeg"),
        (PDF_BYTES, "bill.pdf", "application/pdf"),
    ],
)
async def test_attachment_round_trip(
    app: FastAPI, client: httpx.AsyncClient, data: bytes, name: str, mime: str
) -> None:
    cast = await claim_cast(app)
    sent = await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={"attachment": attachment(data, name, mime)},
        headers=auth_headers(app, cast.customer),
    )
    assert sent.status_code == 201, sent.text
    assert "attachment" not in sent.json()
    url = f"/api/claims/{cast.claim.id}/messages/{sent.json()['id']}/attachment"
    [listed] = (
        await client.get(f"/api/claims/{cast.claim.id}/messages", headers=auth_headers(app, cast.supplier))
    ).json()
    assert listed["message"] == ""
    assert listed["attachment"] == {"filename": name, "mimeType": mime, "size": len(data), "url": url}

    for user in (cast.customer, cast.supplier, cast.admin):
        download = await client.get(url, headers=auth_headers(app, user))
        assert download.status_code == 200
        assert download.content == data
        assert download.headers["content-type"] == mime
        assert download.headers["content-disposition"].startswith("attachment;")
        assert download.headers["x-content-type-options"] == "nosniff"
    for user in (cast.outsider, cast.other_supplier):
        assert_error(await client.get(url, headers=auth_headers(app, user)), 404, "NOT_FOUND")


async def test_bare_base64_and_text_with_attachment(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    body = {
        "message": "See the bill",
        "attachment": {"dataUrl": base64.b64encode(PDF_BYTES).decode(), "fileName": "bill.pdf"},
    }
    sent = await client.post(
        f"/api/claims/{cast.claim.id}/messages", json=body, headers=auth_headers(app, cast.customer)
    )
    assert sent.status_code == 201, sent.text
    download = await client.get(
        f"/api/claims/{cast.claim.id}/messages/{sent.json()['id']}/attachment",
        headers=auth_headers(app, cast.customer),
    )
    assert download.content == PDF_BYTES and download.headers["content-type"] == "application/pdf"


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
    assert await _messages(app) == []


@pytest.mark.settings(max_attachment_size=100)
async def test_too_large_attachment_is_413(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    response = await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={"attachment": attachment(PDF_BYTES + b"%" * 200, "big.pdf", "application/pdf")},
        headers=auth_headers(app, cast.customer),
    )
    assert_error(response, 413, "PAYLOAD_TOO_LARGE")


async def test_attachment_of_a_message_without_one_is_404(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    sent = await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={"message": "text only"},
        headers=auth_headers(app, cast.customer),
    )
    url = f"/api/claims/{cast.claim.id}/messages/{sent.json()['id']}/attachment"
    assert_error(await client.get(url, headers=auth_headers(app, cast.customer)), 404, "NOT_FOUND")


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
    assert await _messages(app) == [] and await _events(app) == [] and await _outbox(app) == []
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


async def test_null_message_with_an_attachment(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    body = {"message": None, "attachment": attachment(PDF_BYTES, "bill.pdf", "application/pdf")}
    response = await client.post(
        f"/api/claims/{cast.claim.id}/messages", json=body, headers=auth_headers(app, cast.customer)
    )
    assert response.status_code == 201, response.text
    assert response.json()["message"] == ""


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
    assert await _messages(app) == [] and await _events(app) == [] and await _outbox(app) == []


@pytest.mark.postgres_only
async def test_messages_posted_at_once_in_one_claim_all_land(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app, status="in_progress")
    headers = auth_headers(app, cast.customer)
    path = f"/api/claims/{cast.claim.id}/messages"

    responses = await asyncio.gather(
        *(client.post(path, json={"message": f"m{n}"}, headers=headers) for n in range(8))
    )

    assert [response.status_code for response in responses] == [201] * 8
    assert sorted(message.body for message in await _messages(app)) == [f"m{n}" for n in range(8)]
