"""The hub's event payloads (docs/api.md, real-time events): ids as numeric strings, times ending in Z."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from app.core.clock import iso_utc_z
from app.models import Claim, Message, ReturnAuthorization, User
from app.models.user import DELETED_USER


def new_message(message: Message, sender: User | None) -> dict[str, Any]:
    """`new_message` on `claims/{id}/messages`."""
    return {
        "type": "new_message",
        "message": {
            "id": str(message.id),
            "senderId": str(sender.id) if sender else None,
            "senderName": sender.name if sender else DELETED_USER,
            "message": message.body,
            "createdAt": iso_utc_z(message.created_at),
        },
    }


def messages_read(message_ids: Iterable[int], read_at: datetime) -> dict[str, Any]:
    """`messages_read` on `claims/{id}/messages`: a participant read these messages."""
    return {
        "type": "messages_read",
        "messageIds": [str(i) for i in message_ids],
        "readAt": iso_utc_z(read_at),
    }


def status_update(claim: Claim) -> dict[str, Any]:
    """`status_update` on `claims/{id}/status`; a routed claim's names its organisation (contract 17.12),
    an unrouted claim's is the spec's payload as it always was."""
    payload = {
        "type": "status_update",
        "claimId": claim.id,
        "status": claim.status,
        "updatedAt": iso_utc_z(claim.updated_at),
    }
    if claim.organization_id is not None:
        payload["organizationId"] = claim.organization_id
    return payload


def rma_issued(claim: Claim, rma: ReturnAuthorization) -> dict[str, Any]:
    """`rma_issued` on `claims/{id}/status`: the claim's return authorisation (its detail shows it too)."""
    return {
        "type": "rma_issued",
        "claimId": claim.id,
        "number": rma.number,
        "issuedAt": iso_utc_z(rma.issued_at),
    }
