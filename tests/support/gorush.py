"""A push gateway on 127.0.0.1 that reads requests the way gorush does and answers like gorush in sync
mode (`core.sync: true`), with FCM HTTP v1 and APNs behind it as their documentation describes.

What it models, from gorush's source (router/server.go, notify/notification*.go, logx/log.go):
- `POST /api/push` binds `{"notifications": [...]}` into Go structs: a field of the wrong JSON type, or
  no `notifications`, is `400 {"code": 400, "message": "Missing notifications field."}`; an empty list is
  "Notifications field is empty."; more than `max_notification` (100) is "Number of notifications(N)
  over limit(100)". Unknown keys are ignored by Go; they are recorded in `ignored_keys` so a test can
  say that nothing the service sends is silently dropped.
- A notification gorush refuses before sending (no tokens; FCM v1: a `data` value or a `sound` that is
  not a string; an Android notification with `topic`, which gorush sends to that topic instead of the
  tokens) produces no log entry at all: gorush still answers `success: ok`. Such refusals are recorded
  in `rejected`, which is how a test sees what a real gorush would have dropped without a word.
- APNs with token authentication answers `MissingTopic` without `topic` and `DeviceTokenNotForTopic`
  for another app's topic; a payload over 4096 bytes is `PayloadTooLarge`; `aps` is not a data key.
- Device outcomes come from the token's prefix: `gone-` is unregistered (APNs `Unregistered`, FCM v1
  "Requested entity was not found."), `bad-` is not a token (APNs `BadDeviceToken`, FCM v1 "The
  registration token is not a valid FCM registration token"), `flaky-` a transient failure. Everything
  else is delivered: `delivered` holds what the phone receives (the APNs payload or the FCM message).
- `hide_token` masks tokens in the logs as gorush's default `log.hide_token: true` does.

The `gorush` fixture runs one for a test, and `pusher` is the service's sender configured for it (both
registered for every package by tests/conftest.py).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from app.notifications.push import GorushPush

IOS, ANDROID = 1, 2
APNS_TOPIC = "com.example.warranty"  # the iOS app's bundle id
MAX_NOTIFICATIONS = 100
APNS_MAX_PAYLOAD = 4096

# The JSON types Go's decoder accepts for the fields the service may send (gorush's PushNotification).
_STRING_FIELDS = {
    "notif_id",
    "to",
    "topic",
    "message",
    "title",
    "image",
    "priority",
    "collapse_id",
    "push_type",
    "category",
    "thread-id",
    "apns_id",
    "name",
    "condition",
}
_BOOL_FIELDS = {"content_available", "mutable_content", "production", "development"}
_INT_FIELDS = {"platform", "retry", "badge", "expiration"}
_OBJECT_FIELDS = {"data", "alert", "notification", "android", "apns", "webpush", "fcm_options"}
_KNOWN = _STRING_FIELDS | _BOOL_FIELDS | _INT_FIELDS | _OBJECT_FIELDS | {"tokens", "sound", "volume"}

_ERRORS = {
    ("gone-", IOS): "Unregistered",
    ("gone-", ANDROID): "Requested entity was not found.",
    ("bad-", IOS): "BadDeviceToken",
    ("bad-", ANDROID): "The registration token is not a valid FCM registration token",
    ("flaky-", IOS): "ServiceUnavailable",
    ("flaky-", ANDROID): "Internal error encountered.",
}


class BindError(Exception):
    """The request does not bind into gorush's request struct."""


@dataclass
class Delivered:
    platform: int
    token: str
    payload: dict[str, Any]  # the APNs payload, or the FCM v1 message without its token


@dataclass
class GorushState:
    apns_topic: str
    hide_token: bool = False
    requests: list[dict[str, Any]] = field(default_factory=list)
    delivered: list[Delivered] = field(default_factory=list)
    rejected: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    ignored_keys: set[str] = field(default_factory=set)
    connections: set[tuple[str, int]] = field(default_factory=set)


def _check_types(notification: Any) -> None:
    if not isinstance(notification, dict):
        raise BindError("notification is not an object")
    for key, value in notification.items():
        if value is None:
            continue
        if key in _STRING_FIELDS and not isinstance(value, str):
            raise BindError(f"{key} is not a string")
        if key in _BOOL_FIELDS and not isinstance(value, bool):
            raise BindError(f"{key} is not a bool")
        if key in _INT_FIELDS and (isinstance(value, bool) or not isinstance(value, int)):
            raise BindError(f"{key} is not an int")
        if key in _OBJECT_FIELDS and not isinstance(value, dict):
            raise BindError(f"{key} is not an object")
    tokens = notification.get("tokens")
    if tokens is not None and not (isinstance(tokens, list) and all(isinstance(t, str) for t in tokens)):
        raise BindError("tokens is not an array of strings")


def _bind(body: Any) -> list[dict[str, Any]]:
    if not isinstance(body, dict) or not isinstance(body.get("notifications"), list):
        raise BindError("no notifications")
    for notification in body["notifications"]:
        _check_types(notification)
    return list(body["notifications"])


def _refusal(item: dict[str, Any], apns_topic: str) -> str | None:
    """Why gorush would drop the notification before sending it (no log entry), or None."""
    tokens = item.get("tokens") or []
    platform = item.get("platform")
    if platform == ANDROID and (item.get("topic") or item.get("condition")):
        return "an Android notification with a topic goes to that topic, not to its tokens"
    if not tokens:
        return "tokens must not be nil or empty"
    if platform == ANDROID:
        if len(tokens) > 500:
            return "tokens must not contain more than 500 elements"
        if "sound" in item and not isinstance(item["sound"], str):
            return "invalid sound format"
        if any(not isinstance(value, str) for value in (item.get("data") or {}).values()):
            return "invalid data format"
    elif platform == IOS:
        if len(tokens) == 1 and tokens[0] == "":
            return "the token must not be empty"
        if "aps" in (item.get("data") or {}):
            return "`aps` in data would overwrite the APNs dictionary"
    else:
        return f"unknown platform {platform!r}"
    return None


def _apns_payload(item: dict[str, Any]) -> dict[str, Any]:
    aps: dict[str, Any] = {}
    if item.get("title"):
        aps["alert"] = {"title": item["title"], "body": item.get("message", "")}
    elif item.get("message"):
        aps["alert"] = item["message"]
    if "sound" in item:
        aps["sound"] = item["sound"]
    if item.get("thread-id"):
        aps["thread-id"] = item["thread-id"]
    return {"aps": aps, **(item.get("data") or {})}


def _fcm_message(item: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {
        "notification": {"title": item.get("title", ""), "body": item.get("message", "")}
    }
    if item.get("data"):
        message["data"] = dict(item["data"])
    return message


def _device_error(platform: int, token: str, item: dict[str, Any], apns_topic: str) -> str | None:
    for (prefix, on), error in _ERRORS.items():
        if on == platform and token.startswith(prefix):
            return error
    if platform == IOS:
        if not item.get("topic"):
            return "MissingTopic"
        if item["topic"] != apns_topic:
            return "DeviceTokenNotForTopic"
        if len(json.dumps(_apns_payload(item)).encode()) > APNS_MAX_PAYLOAD:
            return "PayloadTooLarge"
    return None


def _hide(token: str) -> str:
    """gorush's hideToken(token, 10)."""
    if len(token) < 20:
        return "*" * len(token)
    stars = "*" * 10
    return token.replace(token[-10:], stars).replace(token[:10], stars)


def push(state: GorushState, body: Any) -> tuple[int, dict[str, Any]]:
    """What gorush answers to one POST /api/push, recording what reaches the devices."""
    try:
        notifications = _bind(body)
    except BindError:
        return 400, {"code": 400, "message": "Missing notifications field."}
    if not notifications:
        return 400, {"code": 400, "message": "Notifications field is empty."}
    if len(notifications) > MAX_NOTIFICATIONS:
        message = f"Number of notifications({len(notifications)}) over limit({MAX_NOTIFICATIONS})"
        return 400, {"code": 400, "message": message}
    counts, logs = 0, []
    for item in notifications:
        state.ignored_keys |= set(item) - _KNOWN
        counts += len(item.get("tokens") or [])
        reason = _refusal(item, state.apns_topic)
        if reason is not None:
            state.rejected.append((item, reason))
            continue
        platform = item["platform"]
        for token in item["tokens"]:
            error = _device_error(platform, token, item, state.apns_topic)
            if error is None:
                payload = _apns_payload(item) if platform == IOS else _fcm_message(item)
                state.delivered.append(Delivered(platform, token, payload))
                continue
            logs.append(
                {
                    "type": "failed-push",
                    "platform": "ios" if platform == IOS else "android",
                    "token": _hide(token) if state.hide_token else token,
                    "message": item.get("message", ""),
                    "error": error,
                }
            )
    return 200, {"counts": counts, "logs": logs, "success": "ok"}


class Gorush:
    """The gateway as a real HTTP/1.1 server (keep-alive, so connection reuse can be counted)."""

    def __init__(self, apns_topic: str = "com.example.warranty", *, hide_token: bool = False) -> None:
        self.state = GorushState(apns_topic, hide_token)
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        gateway = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                with gateway._lock:
                    gateway._open.add(self.connection)

            def finish(self) -> None:
                super().finish()
                with gateway._lock:
                    gateway._open.discard(self.connection)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with gateway._lock:
                    gateway.state.connections.add(self.client_address)
                    try:
                        body = json.loads(raw)
                    except ValueError:
                        status, answer = 400, {"code": 400, "message": "Missing notifications field."}
                    else:
                        request_id = self.headers.get("X-Request-ID")
                        gateway.state.requests.append(
                            {"path": self.path, "body": body, "request_id": request_id}
                        )
                        if self.path != "/api/push":
                            status, answer = 404, {"code": 404, "message": "404 page not found"}
                        else:
                            status, answer = push(gateway.state, body)
                encoded = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(encoded)))
                self.end_headers()
                self.wfile.write(encoded)

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self.state.requests

    @property
    def delivered(self) -> list[Delivered]:
        return self.state.delivered

    def received(self, token: str) -> list[dict[str, Any]]:
        """What the device with this token received, oldest first."""
        return [item.payload for item in self.state.delivered if item.token == token]

    def assert_all_accepted(self) -> None:
        """Nothing the service sent was dropped by gorush's checks, or ignored as an unknown key."""
        assert self.state.rejected == [], self.state.rejected
        assert self.state.ignored_keys == set(), self.state.ignored_keys

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """An outage: no new connections, and the kept-alive ones are cut."""
        self.server.shutdown()
        self.server.server_close()
        with self._lock:
            for connection in self._open:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)


@pytest.fixture
def gorush() -> Iterator[Gorush]:
    server = Gorush(APNS_TOPIC)
    server.start()
    yield server
    server.stop()


@pytest.fixture
async def pusher(gorush: Gorush) -> AsyncIterator[GorushPush]:
    """The service's gorush sender, configured with the iOS app's bundle id as its APNs topic."""
    sender = GorushPush(gorush.url, timeout=5, apns_topic=APNS_TOPIC)
    yield sender
    await sender.aclose()
