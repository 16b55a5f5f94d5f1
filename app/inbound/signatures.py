"""Webhook signatures: the provider's hex HMAC of the body, and Standard Webhooks (also as Svix sends it).

Every failure, including a malformed header or a missing secret, is the same 401: a caller learns nothing
about which part was wrong, and nothing here can raise anything else.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
from collections.abc import Mapping

from app.config import Settings
from app.core.clock import utc_now
from app.core.security import standard_webhook_mac
from app.errors import Unauthorized

logger = logging.getLogger("warranty.inbound")

TOLERANCE_SECONDS = 5 * 60
_MAX_WEBHOOK_ID = 256


class InvalidSignature(Unauthorized):
    code = "WEBHOOK_SIGNATURE_INVALID"
    message = "The webhook signature is missing or not valid."
    # Like every 401 it carries `WWW-Authenticate: Bearer` (docs/api.md §2; HTTP requires a
    # challenge on a 401), though what is missing here is a signature, not a token.


def provider_signature_header(provider: str) -> str:
    return f"{provider}-signature"


def verify_provider_signature(
    settings: Settings, provider: str, headers: Mapping[str, str], body: bytes
) -> None:
    """`{Provider}-Signature` (any case): the hex HMAC-SHA256 of the raw body with the webhook secret."""
    secret = settings.webhook_secret.get_secret_value()
    given = headers.get(provider_signature_header(provider))
    if not secret or not given:
        raise InvalidSignature()
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected.encode(), given.strip().lower().encode("utf-8", "replace")):
        raise InvalidSignature()


def _first(headers: Mapping[str, str], *names: str) -> str | None:
    for name in names:
        value = headers.get(name)
        if value:
            return value.strip()
    return None


def standard_webhooks_key(secret: str) -> bytes:
    """`whsec_<base64>` is decoded; any other secret is its own UTF-8 bytes (never base64 by guess)."""
    if secret.startswith("whsec_"):
        try:
            key = base64.b64decode(secret.removeprefix("whsec_"), validate=True)
        except (binascii.Error, ValueError):
            key = b""
        if not key:  # an empty key would let anyone sign
            logger.error("WARRANTY_INBOUND_SECRET starts with whsec_ but the rest is not base64 key bytes")
            raise InvalidSignature()
        return key
    return secret.encode()


def verify_standard_webhook(settings: Settings, headers: Mapping[str, str], body: bytes) -> str:
    """Standard Webhooks (`webhook-*` or `svix-*` headers); answers the webhook id."""
    secret = settings.inbound_secret.get_secret_value()
    webhook_id = _first(headers, "webhook-id", "svix-id")
    timestamp = _first(headers, "webhook-timestamp", "svix-timestamp")
    signatures = _first(headers, "webhook-signature", "svix-signature")
    if not secret or not webhook_id or not timestamp or not signatures:
        raise InvalidSignature()
    if len(webhook_id) > _MAX_WEBHOOK_ID or not webhook_id.isascii() or not webhook_id.isprintable():
        raise InvalidSignature()
    if not timestamp.isascii() or not timestamp.isdigit() or len(timestamp) > 12:
        raise InvalidSignature()
    if abs(utc_now().timestamp() - int(timestamp)) > TOLERANCE_SECONDS:
        raise InvalidSignature("The webhook timestamp is outside the accepted window.")
    expected = standard_webhook_mac(standard_webhooks_key(secret), webhook_id, timestamp, body)
    for candidate in signatures.split():
        version, _, encoded = candidate.partition(",")
        if version != "v1" or not encoded:
            continue
        try:
            given = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            continue
        if hmac.compare_digest(expected, given):
            return webhook_id
    raise InvalidSignature()


def postmark_basic_auth(settings: Settings, headers: Mapping[str, str]) -> bool:
    """HTTP Basic credentials equal to the configured Postmark inbound user and password (Postmark sends
    the ones written in the webhook URL; it does not sign inbound posts). Compared in constant time."""
    user = settings.postmark_inbound_user
    password = settings.postmark_inbound_password.get_secret_value()
    scheme, _, encoded = (headers.get("authorization") or "").strip().partition(" ")
    if not user or not password or scheme.lower() != "basic":
        return False
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    given_user, separator, given_password = decoded.partition(":")
    user_matches = hmac.compare_digest(given_user.encode(), user.encode())
    password_matches = hmac.compare_digest(given_password.encode(), password.encode())
    return bool(separator) and user_matches and password_matches
