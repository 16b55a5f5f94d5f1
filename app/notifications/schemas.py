"""Device tokens and admin notification items on the wire."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from app.api.schemas import IsoUtc, RequestModel, ResponseModel
from app.models.enums import PlatformName

# FCM registration tokens, APNs hex tokens and web push endpoints are printable and hold no space: a token
# with a control character or whitespace is no device's, and could not be named again in a DELETE path.
DEVICE_TOKEN_PATTERN = r"^[^\s\x00-\x1f\x7f-\x9f]+$"
DeviceTokenText = Annotated[
    str,
    StringConstraints(min_length=1, max_length=4096, pattern=DEVICE_TOKEN_PATTERN, strip_whitespace=False),
]


class DeviceTokenIn(RequestModel):
    token: DeviceTokenText = Field(examples=["fcm-registration-token-or-apns-hex-token"])
    platform: PlatformName


class DeviceTokenOut(ResponseModel):
    token: str
    platform: str
    created_at: IsoUtc


class NotificationItem(ResponseModel):
    id: int
    kind: str
    status: str
    attempts: int
    last_error: str | None
    next_attempt_at: IsoUtc
    created_at: IsoUtc
    done_at: IsoUtc | None
    payload: dict[str, Any]


class BulkRetry(RequestModel):
    """Which notifications to retry at once: every failed one, or every failed one of one kind."""

    status: Literal["failed"]
    kind: str | None = Field(default=None, min_length=1, max_length=100, examples=["email.claim_message"])


class BulkRetried(ResponseModel):
    count: int = Field(description="How many failed notifications were put back to pending.", examples=[12])
