"""Inbound email webhooks: replies to notification emails become claim messages (docs/api.md §10)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

from fastapi import APIRouter, BackgroundTasks, Request
from pydantic import Field

from app.api.dependencies import SessionDep, SettingsDep, StorageDep
from app.api.openapi import errors
from app.api.schemas import ResponseModel
from app.config import Settings
from app.errors import AppError, NotFound, ValidationFailed
from app.inbound import deliveries
from app.inbound.formats import check_path_format
from app.inbound.service import Outcome, receive
from app.inbound.signatures import postmark_basic_auth, verify_provider_signature, verify_standard_webhook
from app.observability.metrics import series

logger = logging.getLogger("warranty.inbound")

router = APIRouter(prefix="/api", tags=["inbound"])

PRUNE_EVERY_SECONDS = 3600.0


class InboundResult(ResponseModel):
    status: Literal["processed", "ignored", "duplicate"] = Field(examples=["processed"])
    claim_id: int | None = Field(default=None, examples=[42])
    message_id: str | None = Field(default=None, examples=["123"])
    reason: str | None = Field(default=None, examples=["sender_not_authenticated"])


_RESPONSES: dict[int | str, dict[str, Any]] = {
    **errors(400, 401, 403, 404, 500, 503),
    200: {
        "description": "processed, ignored (automated mail, closed claim, nothing new) or duplicate",
        "content": {
            "application/json": {
                "examples": {
                    "processed": {"value": {"status": "processed", "claimId": 42, "messageId": "123"}},
                    "ignored": {"value": {"status": "ignored"}},
                    "not authenticated": {
                        "value": {"status": "ignored", "reason": "sender_not_authenticated"}
                    },
                    "duplicate": {"value": {"status": "duplicate"}},
                }
            }
        },
    },
}


def _json(body: bytes) -> object:
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise ValidationFailed("The request body is not valid JSON.", code="MALFORMED_JSON") from None


@contextmanager
def _counting_refusals() -> Iterator[None]:
    """A delivery refused (bad signature, unknown claim or sender, ...: 4xx) or failed (5xx) is counted."""
    try:
        yield
    except AppError as error:
        series().inbound.labels("rejected" if error.status < 500 else "failed").inc()
        raise


def _result(outcome: Outcome) -> InboundResult:
    series().inbound.labels(outcome.status).inc()
    if outcome.status != "processed":
        return InboundResult(status=outcome.status, reason=outcome.reason)
    return InboundResult(status="processed", claim_id=outcome.claim_id, message_id=str(outcome.message_id))


async def _prune(request: Request, settings: Settings) -> None:
    """Forget old delivery keys, at most once an hour per process, in a transaction of its own."""
    state = request.app.state
    now = time.monotonic()
    if now - getattr(state, "inbound_pruned_at", -PRUNE_EVERY_SECONDS) < PRUNE_EVERY_SECONDS:
        return
    state.inbound_pruned_at = now
    try:
        async with state.sessionmaker() as session, session.begin():
            await deliveries.prune(session, settings.inbound_dedup_days)
    except Exception:  # housekeeping: never the provider's problem
        logger.exception("pruning inbound delivery keys failed")


@router.post(
    "/webhook/{provider}/inbound",
    response_model=InboundResult,
    response_model_exclude_none=True,
    responses=_RESPONSES,
)
async def provider_inbound(
    provider: str,
    request: Request,
    session: SessionDep,
    storage: StorageDep,
    settings: SettingsDep,
    background: BackgroundTasks,
) -> InboundResult:
    """Receive an inbound email from a configured provider (`WARRANTY_INBOUND_PROVIDERS`, else 404).

    Signed with the header `{Provider}-Signature`: the hex HMAC-SHA256 of the raw body keyed with
    `WARRANTY_WEBHOOK_SECRET`; Postmark may instead send HTTP Basic credentials equal to
    `WARRANTY_POSTMARK_INBOUND_USER` / `WARRANTY_POSTMARK_INBOUND_PASSWORD`. The body is a provider event
    (`email.received`; a metadata-only one is completed from Resend's receiving API, 503 while that cannot
    be reached), Postmark's inbound JSON or the generic `{from, to, subject, text, html}`; the Postmark
    path reads Postmark's inbound JSON only (400 for the others). The reply becomes a message in the
    claim named by the `claim+<id>@` recipient (or Postmark's `MailboxHash`).
    """
    with _counting_refusals():
        if provider.lower() not in {name.lower() for name in settings.inbound_providers}:
            raise NotFound("No such inbound provider.")
        body = await request.body()
        if not (provider.lower() == "postmark" and postmark_basic_auth(settings, request.headers)):
            verify_provider_signature(settings, provider, request.headers, body)
        payload = _json(body)
        check_path_format(provider, payload)
        outcome = await receive(session, storage, settings, payload, webhook_id=None)
    background.add_task(_prune, request, settings)
    return _result(outcome)


@router.post(
    "/inbound/email",
    response_model=InboundResult,
    response_model_exclude_none=True,
    responses=_RESPONSES,
)
async def standard_inbound(
    request: Request,
    session: SessionDep,
    storage: StorageDep,
    settings: SettingsDep,
    background: BackgroundTasks,
) -> InboundResult:
    """Receive an inbound email signed by Standard Webhooks (as Resend/Svix send it).

    Headers `webhook-id`, `webhook-timestamp`, `webhook-signature` (or `svix-*`): `v1,<base64 HMAC-SHA256
    of "{id}.{timestamp}.{body}">`, keyed with `WARRANTY_INBOUND_SECRET`; a timestamp more than 5 minutes
    away is refused. A redelivery (same webhook id, provider email id or Message-ID) answers `duplicate`.
    """
    with _counting_refusals():
        body = await request.body()
        webhook_id = verify_standard_webhook(settings, request.headers, body)
        outcome = await receive(session, storage, settings, _json(body), webhook_id=webhook_id)
    background.add_task(_prune, request, settings)
    return _result(outcome)
