"""A Web Push service on 127.0.0.1 (a real HTTP server in a thread), checking each push as a push service
does (RFC 8030, 8291, 8292), and browsers subscribed to it, each with its own P-256 key pair and auth
secret generated here, so every payload is decrypted with the subscription's private key.

Checks, each refusing the push with 400 (or 401/403 for the VAPID header, as FCM and Mozilla's autopush
answer) and recording why:
- `Authorization: vapid t=<JWT>, k=<key>`: the JWT is ES256, verifies under `k` (a P-256 point), its `aud`
  is the endpoint's origin, its `exp` is in the future and at most 24 hours ahead, its `sub` is a mailto:
  or https: URL; `k` is the key the browser subscribed with (403 otherwise, as a real service refuses a
  push signed by another application server);
- `Content-Encoding: aes128gcm`, a `TTL` (non-negative integer), `Urgency` (one of RFC 8030's four) and a
  `Topic` of at most 32 base64url characters when given;
- the body decrypts (http_ece) with the subscription's private key and auth secret, is one record of at
  most 4096 bytes, and holds JSON.

A browser's answers are scripted: `answers` is a list of statuses (with an optional Retry-After) used in
order, then 201.
"""

from __future__ import annotations

import base64
import json
import os
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.support.threaded_http import serving

_TOPIC = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_VAPID = re.compile(r"^vapid t=(?P<t>[^,\s]+),\s*k=(?P<k>[A-Za-z0-9_-]+)$")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Browser:
    """One subscribed browser: the keys it gave its `PushSubscription`, and what reached it."""

    name: str
    endpoint: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes
    application_server_key: str  # the VAPID public key it subscribed with
    answers: list[tuple[int, str | None]] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)  # decrypted payloads, in order
    headers: list[dict[str, str]] = field(default_factory=list)
    attempts: int = 0

    @property
    def p256dh(self) -> str:
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)

    def subscription(self) -> dict[str, Any]:
        """The body `PushSubscription.toJSON()` gives."""
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)},
        }


@dataclass
class PushService:
    server: ThreadingHTTPServer
    browsers: dict[str, Browser] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)  # why pushes were refused
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def browser(self, name: str, application_server_key: str) -> Browser:
        browser = Browser(
            name,
            f"{self.origin}/push/{name}",
            ec.generate_private_key(ec.SECP256R1()),
            os.urandom(16),
            application_server_key,
        )
        self.browsers[name] = browser
        return browser

    def assert_nothing_refused(self) -> None:
        assert self.refused == []


class Refusal(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


def check_vapid(header: str, origin: str, expected_key: str) -> dict[str, Any]:
    """The JWT's claims, as a push service checks them; Refusal otherwise."""
    match = _VAPID.match(header)
    if match is None:
        raise Refusal(401, f"not a vapid Authorization header: {header[:60]!r}")
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(match["k"]))
    try:
        claims = jwt.decode(
            match["t"], key, algorithms=["ES256"], audience=origin, options={"require": ["aud", "exp", "sub"]}
        )
    except jwt.PyJWTError as exc:
        raise Refusal(401, f"VAPID token: {exc}") from None
    if not 0 < claims["exp"] - time.time() <= 24 * 3600:
        raise Refusal(401, "exp must be within 24 hours")
    if not re.match(r"^(mailto:|https://)", str(claims["sub"])):
        raise Refusal(401, "sub must be a mailto: or https: URL")
    if match["k"] != expected_key:
        raise Refusal(403, "signed by another application server key than the subscription's")
    return claims


def check_headers(headers: dict[str, str]) -> None:
    if headers.get("content-encoding") != "aes128gcm":
        raise Refusal(400, "Content-Encoding must be aes128gcm")
    if not headers.get("ttl", "").isdigit():
        raise Refusal(400, "TTL is required")
    if headers.get("urgency", "normal") not in ("very-low", "low", "normal", "high"):
        raise Refusal(400, "bad Urgency")
    topic = headers.get("topic")
    if topic is not None and not _TOPIC.match(topic):
        raise Refusal(400, "Topic must be at most 32 base64url characters")


def decrypt(browser: Browser, body: bytes) -> dict[str, Any]:
    if len(body) > 4096:
        raise Refusal(413, "payload too large")
    try:
        plain = http_ece.decrypt(
            body, private_key=browser.private_key, auth_secret=browser.auth, version="aes128gcm"
        )
    except Exception as exc:
        raise Refusal(400, f"does not decrypt: {exc}") from None
    payload: dict[str, Any] = json.loads(plain)
    return payload


def _handler(service: PushService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            headers = {key.lower(): value for key, value in self.headers.items()}
            name = self.path.rsplit("/", 1)[-1]
            with service.lock:
                browser = service.browsers.get(name)
                if browser is None:
                    return self._answer(404, None)
                browser.attempts += 1
                status, retry_after = browser.answers.pop(0) if browser.answers else (201, None)
                try:
                    check_vapid(
                        headers.get("authorization", ""), service.origin, browser.application_server_key
                    )
                    check_headers(headers)
                    payload = decrypt(browser, body)
                except Refusal as refusal:
                    service.refused.append(str(refusal))
                    return self._answer(refusal.status, None)
                if status == 201:
                    browser.received.append(payload)
                    browser.headers.append(headers)
            self._answer(status, retry_after)

        def _answer(self, status: int, retry_after: str | None) -> None:
            self.send_response(status)
            if retry_after is not None:
                self.send_header("Retry-After", retry_after)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def push_service() -> Iterator[PushService]:
    service = PushService(ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler))
    with serving(service.server, _handler(service)):
        yield service
