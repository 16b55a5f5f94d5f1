"""Device tokens and admin notification items on the wire."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from app.core.schemas import RequestModel, ResponseModel, UtcDateTime

Platform = Literal["ios", "android", "web"]


class DeviceTokenIn(RequestModel):
    token: str = Field(min_length=1, max_length=4096)
    platform: Platform


class DeviceTokenOut(ResponseModel):
    token: str
    platform: str
    created_at: UtcDateTime


class NotificationItem(ResponseModel):
    id: int
    kind: str
    status: str
    attempts: int
    last_error: str | None
    next_attempt_at: UtcDateTime
    created_at: UtcDateTime
    done_at: UtcDateTime | None
    payload: dict[str, Any]


class BulkRetry(RequestModel):
    """Which notifications to retry at once: every failed one, or every failed one of one kind."""

    status: Literal["failed"]
    kind: str | None = Field(default=None, min_length=1, max_length=100, examples=["email.claim_message"])


class BulkRetried(ResponseModel):
    count: int = Field(description="How many failed notifications were put back to pending.", examples=[12])
