"""Recording outbound webhooks: one delivery per subscribed endpoint, in the transaction of the change
that causes the event, each with an outbox row the worker delivers after commit (app.webhooks.delivery).

Event types and the `data` each carries: app.webhooks.payloads; the body of every event is
`{"type", "timestamp", "data"}`, serialized once here so every attempt signs and sends the same bytes.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.clock import iso_utc_z, utc_now
from app.core.driver_reads import DriverRead
from app.models import WebhookDelivery, WebhookEndpoint
from app.models.enums import OutboxKind
from app.outbox.enqueue import enqueue
from app.webhooks.signing import new_message_id

EVENT_TYPES = (
    "claim.created",
    "claim.status_changed",
    "claim.supplier_assigned",
    "claim.rma_issued",
    "claim.sla_breached",
    "message.created",
    "product.warranty_expiring",
)
TEST_EVENT = "webhook.test"  # sent by POST /api/admin/webhooks/{id}/test only, whatever `events` says

# Read by every change that may have subscribers: on the driver's connection (app.core.driver_reads).
_SUBSCRIBERS: DriverRead[Any] = DriverRead(
    select(WebhookEndpoint.id, WebhookEndpoint.events).order_by(WebhookEndpoint.id)
)


def body(event_type: str, data: dict[str, Any], at: datetime | None = None) -> str:
    envelope = {"type": event_type, "timestamp": iso_utc_z(at or utc_now()), "data": data}
    return json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))


async def record(session: AsyncSession, event_type: str, *data: dict[str, Any]) -> None:
    """Queue one `event_type` event per `data` for every endpoint subscribed to it (one query for the
    subscribers; nothing more when there are none)."""
    if not data:
        return
    rows = await _SUBSCRIBERS.all(session)
    endpoint_ids = [endpoint_id for endpoint_id, events in rows if event_type in events]
    if not endpoint_ids:
        return
    at = utc_now()
    for item in data:
        await queue(session, endpoint_ids, event_type, body(event_type, item, at))


async def queue(
    session: AsyncSession, endpoint_ids: list[int], event_type: str, text: str
) -> list[WebhookDelivery]:
    """One delivery of `text` per endpoint, each with its own webhook-id and outbox row."""
    message_ids = [new_message_id() for _ in endpoint_ids]
    items = [
        enqueue(session, OutboxKind.WEBHOOK_DELIVER, {"messageId": message_id}) for message_id in message_ids
    ]
    await session.flush()  # the outbox ids, which the deliveries point to
    deliveries = [
        WebhookDelivery(
            endpoint_id=endpoint_id,
            message_id=message_id,
            event_type=event_type,
            body=text,
            outbox_id=item.id,
            attempts=0,
        )
        for endpoint_id, message_id, item in zip(endpoint_ids, message_ids, items, strict=True)
    ]
    session.add_all(deliveries)
    await session.flush()
    return deliveries
