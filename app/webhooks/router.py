"""Outbound webhooks, managed by admins: endpoints, a test event, and each endpoint's deliveries."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request, Response, status

from app.api.dependencies import AdminUser, Pagination
from app.api.openapi import errors
from app.api.pagination import Page, build_page
from app.config import Settings
from app.core import addresses
from app.core.ids import DIGITS_ONLY, MAX_BIGINT_ID
from app.errors import ValidationFailed
from app.models import WebhookEndpoint
from app.webhooks.dependencies import DeliveryRepo, WebhookRepo
from app.webhooks.recording import TEST_EVENT, body, queue
from app.webhooks.schemas import DeliveryOut, WebhookCreate, WebhookCreated, WebhookOut, WebhookUpdate
from app.webhooks.signing import new_secret

router = APIRouter(prefix="/api/admin/webhooks", tags=["webhooks"])

WebhookId = Annotated[int, Path(ge=1, le=MAX_BIGINT_ID, description="The webhook's id."), DIGITS_ONLY]
DeliveryId = Annotated[
    int, Path(alias="deliveryId", ge=1, le=MAX_BIGINT_ID, description="The delivery's id."), DIGITS_ONLY
]


async def _checked_url(request: Request, url: str) -> str:
    settings: Settings = request.app.state.settings
    try:
        await addresses.check(url, settings.webhook_allow_private)
    except addresses.Refused as exc:
        raise ValidationFailed.field("url", str(exc)) from None
    return url


@router.post(
    "", status_code=status.HTTP_201_CREATED, response_model=WebhookCreated, responses=errors(400, 401, 403)
)
async def create_webhook(
    body: WebhookCreate, request: Request, response: Response, _admin: AdminUser, webhooks: WebhookRepo
) -> WebhookCreated:
    """Register a receiver of signed event posts. The answer holds its `secret` (`whsec_...`), the only
    time it is shown: keep it to verify signatures. A URL that is not http(s), or whose host resolves to
    a loopback, private, link-local or metadata address, is a 400 on `url`."""
    endpoint = await webhooks.add(
        WebhookEndpoint(
            url=await _checked_url(request, body.url),
            events=list(body.events),
            description=body.description,
            secret=new_secret(),
        )
    )
    response.headers["Location"] = f"/api/admin/webhooks/{endpoint.id}"
    return WebhookCreated.model_validate(endpoint)


@router.get("", response_model=Page[WebhookOut], responses=errors(400, 401, 403))
async def list_webhooks(
    request: Request, _admin: AdminUser, page: Pagination, webhooks: WebhookRepo
) -> dict[str, object]:
    """Every registered endpoint, oldest first, always paged (envelope). Secrets are not shown."""
    after = page.after_key(("int",))
    found, total = await webhooks.page(page.fetch, page.offset, after[0] if after else None)
    items, next_cursor = page.window(found, lambda endpoint: (endpoint.id,))
    return build_page([WebhookOut.model_validate(item) for item in items], total, page, request, next_cursor)


@router.get("/{id}", response_model=WebhookOut, responses=errors(400, 401, 403, 404))
async def get_webhook(id: WebhookId, _admin: AdminUser, webhooks: WebhookRepo) -> WebhookEndpoint:
    """One endpoint (without its secret)."""
    return await webhooks.get(id)


@router.patch("/{id}", response_model=WebhookOut, responses=errors(400, 401, 403, 404))
async def update_webhook(
    id: WebhookId, body: WebhookUpdate, request: Request, _admin: AdminUser, webhooks: WebhookRepo
) -> WebhookEndpoint:
    """Change any of `url`, `events`, `description`. A new URL is checked as at registration. Deliveries
    still pending go to the new URL; the secret stays."""
    endpoint = await webhooks.get(id)
    given = body.model_fields_set
    if body.url is not None:
        endpoint.url = await _checked_url(request, body.url)
    if body.events is not None:
        endpoint.events = list(body.events)
    if "description" in given:
        endpoint.description = body.description
    await webhooks.session.flush()
    return endpoint


@router.delete("/{id}", status_code=status.HTTP_204_NO_CONTENT, responses=errors(400, 401, 403, 404))
async def delete_webhook(id: WebhookId, _admin: AdminUser, webhooks: WebhookRepo) -> None:
    """Stop sending to this endpoint; its deliveries are deleted with it (pending ones are not sent)."""
    await webhooks.remove(await webhooks.get(id))


@router.post(
    "/{id}/test",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=DeliveryOut,
    responses=errors(400, 401, 403, 404),
)
async def test_webhook(id: WebhookId, _admin: AdminUser, webhooks: WebhookRepo) -> DeliveryOut:
    """Send a `webhook.test` event to this endpoint (whatever its `events`), through the outbox like any
    other: 202 with the delivery; follow it in the deliveries list."""
    endpoint = await webhooks.get(id)
    data = {"webhookId": endpoint.id, "message": "A test event from Warranty."}
    [delivery] = await queue(webhooks.session, [endpoint.id], TEST_EVENT, body(TEST_EVENT, data))
    return _delivery_out(delivery, "pending", delivery.created_at)


@router.get("/{id}/deliveries", response_model=Page[DeliveryOut], responses=errors(400, 401, 403, 404))
async def list_webhook_deliveries(
    id: WebhookId,
    request: Request,
    _admin: AdminUser,
    page: Pagination,
    webhooks: WebhookRepo,
    deliveries: DeliveryRepo,
    status: Literal["pending", "delivered", "failed"] | None = Query(
        default=None, description="Only deliveries in this state (all when absent)."
    ),
) -> dict[str, object]:
    """This endpoint's deliveries, newest first, always paged (envelope): what was sent (`payload`), its
    `webhook-id` (`messageId`), and what the last attempt saw. Not cached: the worker changes it."""
    await webhooks.get(id)
    after = page.after_key(("int",))
    found, total = await deliveries.page(id, status, page.fetch, page.offset, after[0] if after else None)
    rows, next_cursor = page.window(found, lambda row: (row[0].id,))
    return build_page([_delivery_out(*row) for row in rows], total, page, request, next_cursor)


@router.post(
    "/{id}/deliveries/{deliveryId}/retry",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=DeliveryOut,
    responses=errors(400, 401, 403, 404),
)
async def retry_webhook_delivery(
    id: WebhookId,
    delivery_id: DeliveryId,
    _admin: AdminUser,
    deliveries: DeliveryRepo,
) -> DeliveryOut:
    """Send this delivery again now, with the same `webhook-id` and body: a failed one gets a fresh series
    of attempts, a pending one skips the rest of its backoff, a delivered one goes once more. 202."""
    delivery, _status, _next = await deliveries.get(id, delivery_id)
    due = await deliveries.retry(delivery)
    return _delivery_out(delivery, "pending", due)


def _delivery_out(delivery: Any, status: Any, next_attempt_at: Any) -> DeliveryOut:
    return DeliveryOut(
        id=delivery.id,
        message_id=delivery.message_id,
        type=delivery.event_type,
        status=status,
        attempts=delivery.attempts,
        response_status=delivery.response_status,
        last_error=delivery.last_error,
        next_attempt_at=next_attempt_at if status == "pending" else None,
        last_attempt_at=delivery.last_attempt_at,
        delivered_at=delivery.delivered_at,
        created_at=delivery.created_at,
        payload=json.loads(delivery.body),
    )
