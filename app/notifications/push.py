"""Push notifications: a `log` backend (logs only) and a `gorush` backend (POST {push_url}/api/push).

gorush hands each notification to FCM (HTTP v1) or APNs. What they accept decides the request's shape:
FCM v1 takes `data` values that are strings only (gorush's v1 path refuses the whole notification
otherwise, its legacy path sends `%!s(float64=42)`); APNs token authentication needs the app's bundle id
as `topic`; an alert without `sound` arrives silently; `thread-id` groups a claim's notifications.

gorush answers `{"counts": N, "logs": [{"type": "failed-push", "token": ..., "error": ...}], "success":
"ok"}`; `logs` lists failures when gorush runs in sync mode (`core.sync: true`). Tokens whose error says
the device is gone are reported back so the caller deletes them.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from app.config import Settings
from app.models.enums import Platform
from app.observability import request_context

log = logging.getLogger(__name__)

# gorush platform numbers. Web tokens are FCM registration tokens, so they go the Android (FCM) way.
IOS, ANDROID = 1, 2
GORUSH_PLATFORMS: dict[str, int] = {Platform.IOS: IOS, Platform.ANDROID: ANDROID, Platform.WEB: ANDROID}

# What gorush logs for a token that will never work again, lower-cased: APNs reasons (410 Unregistered
# and ExpiredToken, 400 BadDeviceToken) and the FCM HTTP v1 messages for UNREGISTERED and for a token
# that is not one. DeviceTokenNotForTopic is left out on purpose: a wrong WARRANTY_PUSH_APNS_TOPIC gives
# it for every token, and deleting them all would be worse than the misconfiguration.
_GONE_ERRORS = frozenset(
    {
        "unregistered",
        "baddevicetoken",
        "expiredtoken",
        "requested entity was not found.",
        "the registration token is not a valid fcm registration token",
        # FCM's legacy API, still answered by older gorush releases.
        "notregistered",
        "invalidregistration",
    }
)
# Error codes some Firebase SDK versions put inside longer messages.
_GONE_CODES = ("registration-token-not-registered", "invalid-registration-token")
_HIDDEN = 10  # gorush's `log.hide_token` masks this many characters at each end of a token


@dataclass(frozen=True)
class PushTarget:
    token: str
    platform: str


@dataclass(frozen=True)
class PushNotification:
    title: str
    message: str
    data: dict[str, str] = field(default_factory=dict)
    thread: str | None = None  # notifications sharing one are grouped on the device (iOS `thread-id`)


class PushSender(Protocol):
    async def send(self, targets: list[PushTarget], notification: PushNotification) -> set[str]:
        """Deliver to every target; answers the tokens the gateway reported invalid. Raises when the
        gateway cannot be reached or refuses the request (the worker retries)."""
        ...

    async def aclose(self) -> None:
        """Release connections (the worker is stopping)."""
        ...


class LogPush:
    async def send(self, targets: list[PushTarget], notification: PushNotification) -> set[str]:
        log.info(
            "push to %d device(s): %s: %s %s",
            len(targets),
            notification.title,
            notification.message,
            notification.data,
        )
        return set()

    async def aclose(self) -> None:
        return None


class GorushPush:
    """One HTTP client for every send, so connections to gorush are kept alive and reused."""

    def __init__(self, url: str, timeout: float, apns_topic: str | None = None) -> None:
        self.endpoint = url.rstrip("/") + "/api/push"
        self.apns_topic = apns_topic or None
        self.client = httpx.AsyncClient(timeout=timeout)
        if self.apns_topic is None:
            log.warning("WARRANTY_PUSH_APNS_TOPIC is not set: APNs token authentication refuses iOS pushes")

    def body(self, targets: list[PushTarget], notification: PushNotification) -> dict[str, Any]:
        by_platform: dict[int, list[str]] = defaultdict(list)
        for target in targets:
            by_platform[GORUSH_PLATFORMS.get(target.platform, ANDROID)].append(target.token)
        return {
            "notifications": [
                self._notification(platform, tokens, notification)
                for platform, tokens in sorted(by_platform.items())
            ]
        }

    def _notification(
        self, platform: int, tokens: list[str], notification: PushNotification
    ) -> dict[str, Any]:
        item: dict[str, Any] = {
            "tokens": tokens,
            "platform": platform,
            "title": notification.title,
            "message": notification.message,
            "data": {key: str(value) for key, value in notification.data.items()},
        }
        if platform == IOS:  # `topic` on an Android notification would make it a topic message
            item["sound"] = "default"
            if self.apns_topic:
                item["topic"] = self.apns_topic
            if notification.thread:
                item["thread-id"] = notification.thread
        return item

    async def send(self, targets: list[PushTarget], notification: PushNotification) -> set[str]:
        request_id = request_context.request_id()  # the request that caused it (the worker binds it)
        headers = {"X-Request-ID": request_id} if request_id else None
        response = await self.client.post(
            self.endpoint, json=self.body(targets, notification), headers=headers
        )
        response.raise_for_status()
        return invalid_tokens(response.json(), [target.token for target in targets])

    async def aclose(self) -> None:
        await self.client.aclose()


def masked(token: str) -> str:
    """The token as gorush logs it with `log.hide_token` (its default): both ends replaced by stars."""
    if len(token) < _HIDDEN * 2:
        return "*" * len(token)
    stars = "*" * _HIDDEN
    return token.replace(token[-_HIDDEN:], stars).replace(token[:_HIDDEN], stars)


def _is_gone(error: str) -> bool:
    normalized = " ".join(error.lower().split())
    return normalized in _GONE_ERRORS or any(code in normalized for code in _GONE_CODES)


def invalid_tokens(answer: Any, sent: list[str]) -> set[str]:
    """The tokens a gorush answer reports as gone for good (other failures are only logged). A log entry
    names its token in clear, or masked when gorush hides tokens; both are matched to what was sent."""
    masks: dict[str, list[str]] = defaultdict(list)
    for token in sent:
        masks[masked(token)].append(token)
    # A mask shared by two tokens (short ones are all stars) names neither.
    by_logged = {mask: tokens[0] for mask, tokens in masks.items() if len(tokens) == 1}
    by_logged.update({token: token for token in sent})
    logs = answer.get("logs") if isinstance(answer, dict) else None
    invalid: set[str] = set()
    for entry in logs if isinstance(logs, list) else []:
        if not isinstance(entry, dict) or entry.get("type") != "failed-push":
            continue
        error, gone = str(entry.get("error", "")), by_logged.get(str(entry.get("token")))
        if _is_gone(error) and gone is not None:
            invalid.add(gone)
        else:
            log.warning("push to a %s device failed: %s", entry.get("platform"), error)
    return invalid


def push_sender(settings: Settings) -> PushSender:
    if settings.push_backend == "gorush":
        if not settings.push_url:
            raise ValueError("WARRANTY_PUSH_BACKEND=gorush needs WARRANTY_PUSH_URL")
        return GorushPush(settings.push_url, settings.push_timeout, settings.push_apns_topic)
    return LogPush()
