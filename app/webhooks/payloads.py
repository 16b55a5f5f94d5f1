"""The `data` of each outbound webhook event: the resource as the REST API shows it (camelCase, integer
ids, timestamps with offset), and what changed.

Every `claim` carries `organizationId`: the supplier organisation it is routed to, or null (contract 17.12).

- `claim.created`: `{"claim"}`
- `claim.status_changed`: `{"claim", "previousStatus", "actorId"}`; its claim also carries
  `warrantyExtension` (the resolution's, or null: docs/api.md §6.2)
- `claim.sla_breached`: `{"claimId", "organizationId", "which", "dueAt"}` (`which`: first_response or
  resolution; docs/api.md, "Deadlines")
- `claim.supplier_assigned`: `{"claim", "previousSupplierId", "actorId"}` (unassigned: `supplierId` null)
- `claim.rma_issued`: `{"claim", "rma", "actorId"}`; `rma` as the claim detail shows it (`number`,
  `issuedAt`, `instructions`, `labelUrl`)
- `message.created`: `{"message", "claimId"}` (message ids as numeric strings, as the messages API has them)
- `product.warranty_expiring`: `{"product", "thresholdDays", "daysLeft"}`
- `webhook.test`: `{"webhookId", "message"}`
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from app.core.clock import iso_utc
from app.models import Claim, Message, ReturnAuthorization, User, WarrantyExtension
from app.models.user import DELETED_USER


def claim(row: Claim) -> dict[str, Any]:
    return {
        "id": row.id,
        "productId": row.product_id,
        "customerId": row.customer_id,
        "supplierId": row.supplier_id,
        "organizationId": row.organization_id,
        "status": row.status,
        "description": row.description,
        "outcome": row.outcome,
        "outcomeNote": row.outcome_note,
        "createdAt": iso_utc(row.created_at),
        "updatedAt": iso_utc(row.updated_at),
    }


def rma_label_url(claim_id: int) -> str:
    return f"/api/claims/{claim_id}/rma/label"


def rma(row: ReturnAuthorization) -> dict[str, Any]:
    """A claim's return authorisation as its detail shows it (`labelUrl` null without a label)."""
    return {
        "number": row.number,
        "issuedAt": iso_utc(row.issued_at),
        "instructions": row.instructions,
        "labelUrl": rma_label_url(row.claim_id) if row.label_key else None,
    }


def outcome(row: Claim, extension: WarrantyExtension | None) -> dict[str, Any]:
    """A claim's outcome as its detail shows it: `outcome`, `outcomeNote`, `warrantyExtension`."""
    extended = None
    if extension is not None:
        extended = {
            "months": extension.months,
            "startsOn": extension.starts_on.isoformat(),
            "endsOn": extension.ends_on.isoformat(),
        }
    return {"outcome": row.outcome, "outcomeNote": row.outcome_note, "warrantyExtension": extended}


def message(row: Message, sender: User | None) -> dict[str, Any]:
    attachment = None
    if row.attachment_name is not None:
        attachment = {
            "filename": row.attachment_name,
            "mimeType": row.attachment_mime,
            "size": row.attachment_size,
            "url": f"/api/claims/{row.claim_id}/messages/{row.id}/attachment",
        }
    return {
        "id": str(row.id),
        "senderId": str(sender.id) if sender else None,
        "senderName": sender.name if sender else DELETED_USER,
        "message": row.body,
        "createdAt": iso_utc(row.created_at),
        "attachment": attachment,
    }


def expiring_product(row: Any, threshold_days: int, days_left: int) -> dict[str, Any]:
    """`row`: the expiry job's row (id, name, brand, category, owner_id, warranty_expires_on)."""
    return {
        "product": {
            "id": row.id,
            "name": row.name,
            "brand": row.brand,
            "category": row.category,
            "ownerId": row.owner_id,
            "warrantyExpiresAt": iso_utc(_midnight(row.warranty_expires_on)),
        },
        "thresholdDays": threshold_days,
        "daysLeft": days_left,
    }


def _midnight(day: date) -> datetime:  # a day as the products API shows it: 00:00:00 UTC
    return datetime(day.year, day.month, day.day, tzinfo=UTC)
