"""The bodies of contract 19 (app/notifications/schemas.py): a browser's `PushSubscription.toJSON()` is
taken as the browser gives it, and keys that are not a P-256 point and a 16-byte secret are refused."""

from __future__ import annotations

import base64
import os

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from pydantic import ValidationError

from app.notifications.schemas import WebPushKeys, WebPushSubscriptionIn


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def point() -> bytes:
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    return key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def test_a_browser_s_subscription_as_to_json_gives_it() -> None:
    body = {
        "endpoint": "https://updates.push.services.mozilla.com/wpush/v2/gAAAA",
        "expirationTime": None,
        "keys": {"p256dh": b64url(point()), "auth": b64url(os.urandom(16))},
    }
    parsed = WebPushSubscriptionIn.model_validate(body)
    assert parsed.keys.p256dh == body["keys"]["p256dh"] and parsed.expiration_time is None  # type: ignore[index]
    padded = WebPushKeys.model_validate(
        {"p256dh": b64url(point()) + "=", "auth": b64url(os.urandom(16)) + "=="}
    )
    assert padded.auth.endswith("==")


@pytest.mark.parametrize(
    ("keys", "problem"),
    [
        ({"p256dh": b64url(b"\x04" + bytes(64))}, "P-256 point"),  # the right length, not on the curve
        ({"p256dh": b64url(b"\x02" + bytes(32)).ljust(87, "A")}, "P-256 point"),
        ({"auth": b64url(os.urandom(17))}, "16 bytes"),
        ({"auth": "+/+/+/+/+/+/+/+/+/+/+/"}, "pattern"),
    ],
)
def test_keys_that_no_browser_makes_are_refused(keys: dict[str, str], problem: str) -> None:
    body = {"p256dh": b64url(point()), "auth": b64url(os.urandom(16))} | keys
    with pytest.raises(ValidationError, match=problem):
        WebPushKeys.model_validate(body)
