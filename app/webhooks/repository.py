"""Webhook endpoints and their deliveries as an admin manages them. A delivery's state comes from its
outbox row (pending, or failed for good) unless the delivery itself says it was delivered."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Select, case, func, select

from app.core.clock import utc_now
from app.core.repository import Repository
from app.errors import NotFound
from app.models import OutboxItem, WebhookDelivery, WebhookEndpoint
from app.models.enums import OutboxKind, OutboxState
from app.outbox.enqueue import enqueue, wake_worker

S = TypeVar("S", bound=Select)

# A purged outbox row (retention) of an undelivered delivery had failed: delivered rows say so themselves.
delivery_status: ColumnElement[str] = case(
    (WebhookDelivery.delivered_at.is_not(None), "delivered"),
    (OutboxItem.status == OutboxState.PENDING, "pending"),
    (OutboxItem.status == OutboxState.DONE, "delivered"),
    else_="failed",
)


def _with_outbox(statement: S) -> S:
    return statement.outerjoin(OutboxItem, OutboxItem.id == WebhookDelivery.outbox_id)


class WebhookRepository(Repository):
    async def get(self, webhook_id: int) -> WebhookEndpoint:
        endpoint = await self.session.get(WebhookEndpoint, webhook_id)
        if endpoint is None:
            raise NotFound("No such webhook.")
        return endpoint

    async def add(self, endpoint: WebhookEndpoint) -> WebhookEndpoint:
        self.session.add(endpoint)
        await self.session.flush()
        return endpoint

    async def remove(self, endpoint: WebhookEndpoint) -> None:
        """Its deliveries go with it; their outbox rows end `skipped` when the worker reaches them."""
        await self.session.delete(endpoint)
        await self.session.flush()

    async def page(self, limit: int, offset: int, after_id: int | None) -> tuple[list[WebhookEndpoint], int]:
        """Oldest first; `after_id`: the rows after that one (a cursor's key)."""
        total = int(await self.session.scalar(select(func.count()).select_from(WebhookEndpoint)) or 0)
        query = select(WebhookEndpoint).order_by(WebhookEndpoint.id).limit(limit).offset(offset)
        if after_id is not None:
            query = query.where(WebhookEndpoint.id > after_id)
        return list(await self.session.scalars(query)), total


class DeliveryRepository(Repository):
    async def page(
        self, endpoint_id: int, status: str | None, limit: int, offset: int, after_id: int | None
    ) -> tuple[list[Any], int]:
        """Newest first: rows of (WebhookDelivery, status, next_attempt_at)."""
        where = [WebhookDelivery.endpoint_id == endpoint_id]
        if status is not None:
            where.append(delivery_status == status)
        count = _with_outbox(select(func.count()).select_from(WebhookDelivery)).where(*where)
        total = int(await self.session.scalar(count) or 0)
        if after_id is not None:
            where.append(WebhookDelivery.id < after_id)
        query = (
            _with_outbox(select(WebhookDelivery, delivery_status.label("status"), OutboxItem.next_attempt_at))
            .where(*where)
            .order_by(WebhookDelivery.id.desc())
            .limit(limit)
            .offset(offset)
        )
        return list((await self.session.execute(query)).all()), total

    async def get(self, endpoint_id: int, delivery_id: int) -> Any:
        """(WebhookDelivery, status, next_attempt_at), or 404."""
        query = _with_outbox(
            select(WebhookDelivery, delivery_status.label("status"), OutboxItem.next_attempt_at)
        ).where(WebhookDelivery.id == delivery_id, WebhookDelivery.endpoint_id == endpoint_id)
        row = (await self.session.execute(query)).first()
        if row is None:
            raise NotFound("No such delivery.")
        return row

    async def retry(self, delivery: WebhookDelivery) -> datetime:
        """Due now, whatever its state: a failed one gets a fresh series of attempts, a pending one is not
        kept waiting for its backoff, a delivered one is sent again (same webhook-id). Answers when."""
        now = utc_now()
        item = await self.session.get(OutboxItem, delivery.outbox_id) if delivery.outbox_id else None
        if item is None:  # pruned after it was delivered (or failed long ago)
            item = enqueue(self.session, OutboxKind.WEBHOOK_DELIVER, {"messageId": delivery.message_id})
            await self.session.flush()
            delivery.outbox_id = item.id
        elif item.status != OutboxState.PENDING:
            item.status, item.attempts, item.locked_until, item.done_at = OutboxState.PENDING, 0, None, None
        item.next_attempt_at = now
        delivery.delivered_at = None
        await self.session.flush()
        wake_worker(self.session)
        return now
