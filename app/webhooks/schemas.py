"""Outbound webhook endpoints and their deliveries on the wire."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from app.api.schemas import IsoUtc, RequestModel, ResponseModel

EventType = Literal[
    "claim.created",
    "claim.status_changed",
    "claim.supplier_assigned",
    "claim.rma_issued",
    "claim.sla_breached",
    "message.created",
    "product.warranty_expiring",
]
DeliveryStatus = Literal["pending", "delivered", "failed"]

URL_DOC = "http(s) URL of the receiver; its host must resolve to public addresses only."
EVENTS_DOC = "The event types to receive (at least one; repeats are ignored)."
URL_EXAMPLE = "https://erp.example.com/hooks/warranty"
EVENTS_EXAMPLE = ["claim.created", "claim.status_changed"]
DESCRIPTION_EXAMPLE = "Ticket system of Gaggia Service"


def _distinct(events: list[str] | None) -> list[str] | None:
    return None if events is None else list(dict.fromkeys(events))


class WebhookCreate(RequestModel):
    url: str = Field(min_length=1, max_length=2048, description=URL_DOC, examples=[URL_EXAMPLE])
    events: list[EventType] = Field(
        min_length=1, max_length=20, description=EVENTS_DOC, examples=[EVENTS_EXAMPLE]
    )
    description: str | None = Field(default=None, max_length=500, examples=[DESCRIPTION_EXAMPLE])

    _unique = field_validator("events")(_distinct)


class WebhookUpdate(RequestModel):
    """Any subset of the fields; `description: null` clears it (`url` and `events` may not be null)."""

    # Absent means unchanged; null is refused, so the document does not offer it.
    url: str | SkipJsonSchema[None] = Field(
        default=None, min_length=1, max_length=2048, description=URL_DOC, examples=[URL_EXAMPLE]
    )
    events: list[EventType] | SkipJsonSchema[None] = Field(
        default=None, min_length=1, max_length=20, description=EVENTS_DOC, examples=[EVENTS_EXAMPLE]
    )
    description: str | None = Field(default=None, max_length=500, examples=[DESCRIPTION_EXAMPLE])

    _unique = field_validator("events")(_distinct)

    @field_validator("url", "events", mode="before")
    @classmethod
    def _not_null(cls, value: object) -> object:
        if value is None:  # absent leaves it unchanged; null would leave the endpoint without one
            raise ValueError("may not be null")
        return value


class WebhookOut(ResponseModel):
    id: int
    url: str = Field(examples=[URL_EXAMPLE])
    events: list[EventType]
    description: str | None = Field(examples=[DESCRIPTION_EXAMPLE])
    created_at: IsoUtc
    updated_at: IsoUtc


class WebhookCreated(WebhookOut):
    secret: str = Field(
        description="The signing secret (Standard Webhooks, `whsec_` + base64). Shown only in this answer.",
        examples=["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
    )


class DeliveryOut(ResponseModel):
    id: int
    message_id: str = Field(
        description="The `webhook-id` header: the same on every attempt, so receivers can deduplicate.",
        examples=["msg_5f1c2d9a0b7e4c3f8a6d1e2b3c4d5e6f"],
    )
    type: str = Field(examples=["claim.status_changed"])
    status: DeliveryStatus
    attempts: int = Field(examples=[1])
    response_status: int | None = Field(description="The last attempt's HTTP status", examples=[200])
    last_error: str | None = Field(examples=["HTTP 503: Service Unavailable"])
    next_attempt_at: IsoUtc | None = Field(description="When it is tried next (pending only).")
    last_attempt_at: IsoUtc | None
    delivered_at: IsoUtc | None
    created_at: IsoUtc
    payload: dict[str, Any] = Field(description="The body that is posted: `{type, timestamp, data}`.")
