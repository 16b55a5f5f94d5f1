"""The hub's event payloads (app/changes/hub_payloads.py): message ids as numeric strings, times in UTC
ending in Z without fractions, a deleted sender shown as such."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from app.changes.hub_payloads import messages_read, new_message, status_update
from app.models import Claim, Message, User
from app.models.user import DELETED_USER

BRUSSELS = timezone(timedelta(hours=2))
AT = datetime(2026, 5, 1, 12, 30, 15, 987_654, tzinfo=BRUSSELS)  # 10:30:15 UTC


def _message() -> Message:
    return Message(id=7, claim_id=3, sender_id=5, body="The part is on its way.", created_at=AT)


def test_a_new_message() -> None:
    sender = User(id=5, name="Sam Supplier", email="sam@example.com", password_hash="x", roles=[])

    assert new_message(_message(), sender) == {
        "type": "new_message",
        "message": {
            "id": "7",
            "senderId": "5",
            "senderName": "Sam Supplier",
            "message": "The part is on its way.",
            "createdAt": "2026-05-01T10:30:15Z",
        },
    }


def test_a_message_of_a_deleted_user() -> None:
    message = new_message(_message(), None)["message"]
    assert (message["senderId"], message["senderName"]) == (None, DELETED_USER)


def test_messages_read() -> None:
    assert messages_read(iter([9, 10, 12]), AT.astimezone(UTC)) == {
        "type": "messages_read",
        "messageIds": ["9", "10", "12"],
        "readAt": "2026-05-01T10:30:15Z",
    }
    assert messages_read([], AT)["messageIds"] == []


def test_a_status_update_keeps_the_claim_id_a_number() -> None:
    claim = Claim(id=42, product_id=1, customer_id=2, status="in_progress", description="x", updated_at=AT)

    assert status_update(claim) == {
        "type": "status_update",
        "claimId": 42,
        "status": "in_progress",
        "updatedAt": "2026-05-01T10:30:15Z",
    }
