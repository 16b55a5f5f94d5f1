"""Message rows into the messages API's shapes (app/messages/serializers.py): ids as numeric strings, the
sender's fields (none but "Deleted user" once the account is gone), the profile picture's path, the
attachment with its download URL, the read state, and the send answer; on rows built here and as the
list shows real ones."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import httpx
from fastapi import FastAPI

from app.messages.serializers import admin_message_out, attachment_url, message_created, message_out
from app.models import Message, User
from tests.factories.claims import claim_cast, create_message
from tests.factories.users import auth_headers, create_user
from tests.messages.support import mark_read_as

AT = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def _row(**fields: Any) -> SimpleNamespace:
    """A row as app.messages.repository answers it."""
    values: dict[str, Any] = {
        "id": 42, "claim_id": 7, "sender_id": 10, "body": "Hello", "created_at": AT,
        "attachment_name": None, "attachment_mime": None, "attachment_size": None, "sender_name": "Ann",
        "sender_email": "ann@example.com", "sender_picture": None, "read_at": None,
    }  # fmt: skip
    return SimpleNamespace(**(values | fields))


def test_a_row_is_a_message_with_string_ids_and_its_read_state() -> None:
    unread = message_out(_row()).model_dump(by_alias=True, mode="json")
    read = message_out(_row(read_at=AT, sender_picture="ab12.png")).model_dump(by_alias=True, mode="json")

    assert unread == {
        "id": "42", "senderId": "10", "senderName": "Ann", "senderEmail": "ann@example.com",
        "message": "Hello", "createdAt": "2026-05-01T12:00:00+00:00", "isRead": False, "readAt": None,
        "senderProfilePicture": None, "attachment": None,
    }  # fmt: skip
    assert (read["isRead"], read["readAt"]) == (True, "2026-05-01T12:00:00+00:00")
    assert read["senderProfilePicture"] == "/api/user/profile-picture/ab12.png"


def test_a_deleted_senders_message_names_nobody() -> None:
    gone = message_out(_row(sender_id=None, sender_name=None, sender_email=None, sender_picture="ab12.png"))

    assert (gone.sender_id, gone.sender_name, gone.sender_email) == (None, "Deleted user", None)
    assert gone.sender_profile_picture is None


def test_an_attachment_is_described_with_its_download_url() -> None:
    row = _row(attachment_name="bill.pdf", attachment_mime="application/pdf", attachment_size=1234)

    described = message_out(row).model_dump(by_alias=True)["attachment"]

    assert described == {
        "filename": "bill.pdf",
        "mimeType": "application/pdf",
        "size": 1234,
        "url": "/api/claims/7/messages/42/attachment",
    }
    assert attachment_url(7, 42) == described["url"]


def test_the_admin_list_adds_the_claim() -> None:
    listed = admin_message_out(_row(read_at=AT)).model_dump(by_alias=True)

    assert listed["claimId"] == 7 and listed["id"] == "42" and listed["isRead"] is True


def test_a_message_just_sent_is_read_by_nobody() -> None:
    sender = User(id=10, name="Ann", email="ann@example.com")
    message = Message(id=42, claim_id=7, sender_id=10, body="Hello", created_at=AT)

    created = message_created(message, sender).model_dump(by_alias=True, mode="json")

    assert created == {
        "id": "42", "senderId": "10", "senderName": "Ann", "senderEmail": "ann@example.com",
        "message": "Hello", "createdAt": "2026-05-01T12:00:00+00:00", "isRead": False, "readAt": None,
    }  # fmt: skip


async def test_deleted_sender(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    await create_message(app, cast.claim, cast.supplier, "the part is on its way")
    admin_headers = auth_headers(app, cast.admin)
    assert (await client.delete(f"/api/users/{cast.supplier.id}", headers=admin_headers)).status_code == 204

    [item] = (
        await client.get(f"/api/claims/{cast.claim.id}/messages", headers=auth_headers(app, cast.customer))
    ).json()

    assert item["senderId"] is None and item["senderEmail"] is None
    assert item["senderName"] == "Deleted user" and item["senderProfilePicture"] is None
    assert item["message"] == "the part is on its way"
    detail = (
        await client.get(f"/api/claims/{cast.claim.id}", headers=auth_headers(app, cast.customer))
    ).json()
    assert detail["supplierId"] is None and detail["messages"][0]["senderId"] is None
    # A message of a deleted sender was received by everyone still there.
    assert (await mark_read_as(app, client, cast, "customer"))["markedAsRead"] == 1


async def test_sender_fields_and_profile_picture(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    pictured = await create_user(app, name="Pia", profile_picture="0123456789abcdef0123456789abcdef.png")
    await create_message(app, cast.claim, cast.customer, "one")
    async with app.state.sessionmaker() as session, session.begin():
        claim = await session.merge(cast.claim)
        claim.supplier_id = pictured.id
    await create_message(app, cast.claim, pictured, "two")

    items = (
        await client.get(f"/api/claims/{cast.claim.id}/messages", headers=auth_headers(app, cast.admin))
    ).json()

    assert [(i["senderId"], i["senderName"], i["senderEmail"], i["senderProfilePicture"]) for i in items] == [
        (str(cast.customer.id), "Ann Customer", cast.customer.email, None),
        (
            str(pictured.id),
            "Pia",
            pictured.email,
            "/api/user/profile-picture/0123456789abcdef0123456789abcdef.png",
        ),
    ]
    assert all(isinstance(i["id"], str) and i["attachment"] is None for i in items)
