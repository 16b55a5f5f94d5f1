"""Web Push to a browser's push service (contract 19.1): the payload encrypted for the subscription
(RFC 8291, `aes128gcm`, through http-ece and cryptography), a VAPID `Authorization` header (RFC 8292),
and the RFC 8030 headers `TTL`, `Urgency` and `Topic` (one per claim: a browser that wakes after a day
gets the claim's latest notice, not a backlog).

The request goes out as webhooks do (app.webhooks.sender): the endpoint's host is resolved and checked
against the address rules right before, and the request connects to the checked address. Encrypting and
signing are CPU work (an ECDH, an ECDSA signature): they run in a thread, off the event loop.

What the push service answers decides the row's fate: 2xx delivered; 404 and 410 the subscription is gone
(the caller deletes it); 429 and 5xx retried by the outbox (after `Retry-After` when given); any other
4xx (a key the service refuses, a payload too large) fails for good.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, Literal

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec

from app.core.addresses import Refused
from app.core.clock import utc_now
from app.notifications.vapid import VapidKey, b64url_decode
from app.outbox.handlers import PermanentFailure, RetryLater
from app.webhooks.sender import Unsuccessful, post

MAX_PAYLOAD = 3000  # bytes of JSON before encryption: the contract's "under 3 KB"
MAX_TOPIC = 32  # RFC 8030 5.4: at most 32 base64url characters
USER_AGENT = "Warranty-WebPush/1.0"
GONE = frozenset({404, 410})

Urgency = Literal["very-low", "low", "normal", "high"]


class SubscriptionGone(Exception):
    """The push service says the subscription no longer exists (404 or 410): delete it."""


@dataclass(frozen=True)
class WebPush:
    """One notice to one subscription: the JSON payload, its `Topic` and `Urgency`."""

    payload: dict[str, Any]
    topic: str
    urgency: Urgency


@dataclass(frozen=True)
class Subscription:
    endpoint: str
    p256dh: str
    auth: str


def payload_bytes(payload: dict[str, Any]) -> bytes:
    """The JSON payload in at most MAX_PAYLOAD bytes: its `body` is shortened (with an ellipsis) to fit."""
    encoded = _json(payload)
    body = str(payload.get("body") or "").encode()
    while len(encoded) > MAX_PAYLOAD and body:
        keep = max(0, len(body) - (len(encoded) - MAX_PAYLOAD) - len("…".encode()))
        body = body[:keep]
        text = body.decode(errors="ignore").rstrip()
        encoded = _json({**payload, "body": text + "…" if text else ""})
    return encoded


def _json(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def encrypt(plain: bytes, subscription: Subscription) -> bytes:
    """RFC 8291: an ephemeral P-256 key agreed with the browser's `p256dh`, mixed with its `auth` secret,
    one aes128gcm record whose header carries the ephemeral public key as its keyid."""
    return http_ece.encrypt(
        plain,
        salt=os.urandom(16),
        private_key=ec.generate_private_key(ec.SECP256R1()),
        dh=b64url_decode(subscription.p256dh),
        auth_secret=b64url_decode(subscription.auth),
        version="aes128gcm",
    )


def request_parts(
    push: WebPush, subscription: Subscription, key: VapidKey, subject: str, ttl: int
) -> tuple[bytes, dict[str, str]]:
    """The encrypted body and the headers of one push request (CPU work: run it in a thread)."""
    body = encrypt(payload_bytes(push.payload), subscription)
    headers = {
        "Authorization": key.authorization(subscription.endpoint, subject, int(utc_now().timestamp())),
        "Content-Encoding": "aes128gcm",
        "Content-Type": "application/octet-stream",
        "TTL": str(ttl),
        "Urgency": push.urgency,
        "Topic": push.topic[:MAX_TOPIC],
        "User-Agent": USER_AGENT,
    }
    return body, headers


async def send(
    push: WebPush,
    subscription: Subscription,
    *,
    key: VapidKey,
    subject: str,
    ttl: int,
    allow_private: bool,
    seconds: float,
) -> None:
    """Deliver one push; SubscriptionGone, RetryLater, PermanentFailure or a transport error otherwise."""
    body, headers = await asyncio.to_thread(request_parts, push, subscription, key, subject, ttl)
    try:
        await post(subscription.endpoint, body, headers, allow_private=allow_private, seconds=seconds)
    except Refused as exc:
        raise PermanentFailure(f"refused: the endpoint {exc}") from None
    except Unsuccessful as exc:
        raise _judged(exc) from None


def _judged(exc: Unsuccessful) -> Exception:
    status = exc.answer.status
    if status in GONE:
        return SubscriptionGone(f"the push service answered {status}: the subscription is gone")
    if status == 429 or status >= 500:
        return RetryLater(str(exc), retry_after_seconds(exc.answer.retry_after))
    return PermanentFailure(str(exc))


def retry_after_seconds(value: str | None) -> float | None:
    """`Retry-After` as seconds from now (delta-seconds or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, (when - utc_now()).total_seconds())
