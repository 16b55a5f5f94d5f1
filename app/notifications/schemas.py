"""Device tokens, Web Push subscriptions, notification URLs and admin notification items on the wire."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from cryptography.hazmat.primitives.asymmetric import ec
from pydantic import Field, StringConstraints, field_validator

from app.api.schemas import IsoUtc, RequestModel, ResponseModel
from app.models.enums import PlatformName
from app.notifications.vapid import b64url_decode

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


# Web Push and notification URLs (contract 19)

_B64URL = r"^[A-Za-z0-9_-]+={0,2}$"
ENDPOINT_EXAMPLE = "https://fcm.googleapis.com/fcm/send/dXa3...:APA91bH..."
P256DH_EXAMPLE = "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM"
AUTH_EXAMPLE = "tBHItJI5svbpez7KI4CCXg"
NOTIFY_URL_EXAMPLE = "ntfys://ntfy.example.com/warranty-alice"


class WebPushKeys(RequestModel):
    p256dh: str = Field(
        alias="p256dh",  # as the browser names it (not camel-cased)
        min_length=86,
        max_length=88,
        pattern=_B64URL,
        description="The browser's P-256 public key (base64url, an uncompressed point of 65 bytes).",
        examples=[P256DH_EXAMPLE],
    )
    auth: str = Field(
        min_length=22,
        max_length=24,
        pattern=_B64URL,
        description="The browser's authentication secret (base64url, 16 bytes).",
        examples=[AUTH_EXAMPLE],
    )

    @field_validator("p256dh")
    @classmethod
    def _a_point(cls, value: str) -> str:
        try:
            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64url_decode(value))
        except ValueError:
            raise ValueError("must be an uncompressed P-256 point, base64url") from None
        return value

    @field_validator("auth")
    @classmethod
    def _sixteen_bytes(cls, value: str) -> str:
        if len(b64url_decode(value)) != 16:
            raise ValueError("must be 16 bytes, base64url")
        return value


class WebPushSubscriptionIn(RequestModel):
    """A browser's `PushSubscription` as `toJSON()` gives it."""

    endpoint: str = Field(
        min_length=1,
        max_length=2048,
        description="The push service URL (https; its host must resolve to public addresses only).",
        examples=[ENDPOINT_EXAMPLE],
    )
    expiration_time: int | None = Field(
        default=None,
        ge=0,
        le=253402300799999,
        description="When the subscription expires, in milliseconds since 1970 (null: never).",
        examples=[None],
    )
    keys: WebPushKeys


class WebPushSubscriptionOut(ResponseModel):
    id: int
    endpoint: str
    expires_at: IsoUtc | None
    created_at: IsoUtc


class WebPushKeyOut(ResponseModel):
    public_key: str = Field(
        description="The VAPID application server key: base64url of an uncompressed P-256 point; pass it to "
        "`pushManager.subscribe({applicationServerKey})`.",
        examples=["BNE1PxefHBS7ePshJ87I4BY8LFF9FycWwSvo0Q-_4ltkKrL6rmMZT5RVEDI4_eSmq8xQz47cIFBoVi7dXyI63EA"],
    )


class NotificationTargetIn(RequestModel):
    url: str = Field(
        min_length=1,
        max_length=2048,
        description="An Apprise URL whose scheme is allowed (WARRANTY_NOTIFY_SCHEMES). Never shown again.",
        examples=[NOTIFY_URL_EXAMPLE],
    )


class NotificationTargetOut(ResponseModel):
    id: int
    scheme: str = Field(examples=["ntfys"])
    redacted: str = Field(
        description="The URL as shown: its scheme and, for a self-hosted service, its host.",
        examples=["ntfys://ntfy.example.com/****"],
    )
    created_at: IsoUtc
