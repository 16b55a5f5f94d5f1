"""Standard Webhooks signing (https://www.standardwebhooks.com): a `whsec_` secret per endpoint, and the
three headers every attempt carries. The `webhook-id` is the delivery's and never changes; the
timestamp is the attempt's, so a retry hours later still passes a receiver's 5-minute tolerance."""

from __future__ import annotations

import base64
import secrets

from app.core.security import standard_webhook_mac

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32  # Standard Webhooks asks for 24 to 64 random bytes


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def new_message_id() -> str:
    """A `webhook-id`: unique per delivery, the same on every attempt (receivers deduplicate by it)."""
    return "msg_" + secrets.token_hex(16)


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    mac = standard_webhook_mac(key, message_id, str(timestamp), body)
    return "v1," + base64.b64encode(mac).decode()


def signed_headers(secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(secret, message_id, timestamp, body),
    }
