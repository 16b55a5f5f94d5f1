"""Push notifications: a `log` backend (logs only) and a `gorush` backend (POST {push_url}/api/push).

gorush answers `{"counts": N, "logs": [{"type": "failed-push", "token": ..., "error": ...}], "success":
"ok"}`; `logs` lists failures when gorush runs in sync mode (`core.sync: true`, recommended). Tokens whose
error says the device is gone are reported back so the caller deletes them.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from app.config import Settings

log = logging.getLogger(__name__)

# gorush platform numbers. Web tokens are FCM registration tokens, so they go the Android (FCM) way.
GORUSH_PLATFORMS = {"ios": 1, "android": 2, "web": 2}

# Errors APNs / FCM give for a token that will never work again.
_INVALID_TOKEN_ERRORS = (
    "unregistered",
    "baddevicetoken",
    "invalidregistration",
    "notregistered",
    "devicetokennotfortopic",
    "registration-token-not-registered",
    "invalid-registration-token",
)


@dataclass(frozen=True)
class PushTarget:
    token: str
    platform: str


@dataclass(frozen=True)
class PushNotification:
    title: str
    message: str
    data: dict[str, Any] = field(default_factory=dict)


class PushSender(Protocol):
    async def send(self, targets: list[PushTarget], notification: PushNotification) -> set[str]:
        """Deliver to every target; answers the tokens the gateway reported invalid. Raises when the
        gateway cannot be reached or refuses the request (the worker retries)."""
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


class GorushPush:
    def __init__(self, url: str, timeout: float) -> None:
        self.endpoint = url.rstrip("/") + "/api/push"
        self.timeout = timeout

    def _body(self, targets: list[PushTarget], notification: PushNotification) -> dict[str, Any]:
        by_platform: dict[int, list[str]] = defaultdict(list)
        for target in targets:
            by_platform[GORUSH_PLATFORMS.get(target.platform, 2)].append(target.token)
        return {
            "notifications": [
                {
                    "tokens": tokens,
                    "platform": platform,
                    "title": notification.title,
                    "message": notification.message,
                    "data": notification.data,
                }
                for platform, tokens in sorted(by_platform.items())
            ]
        }

    async def send(self, targets: list[PushTarget], notification: PushNotification) -> set[str]:
        async with httpx.AsyncClient(timeout=self.timeout) as client:
            response = await client.post(self.endpoint, json=self._body(targets, notification))
        response.raise_for_status()
        return invalid_tokens(response.json())


def invalid_tokens(answer: Any) -> set[str]:
    """The tokens a gorush answer reports as gone for good (other failures are only logged)."""
    logs = answer.get("logs") if isinstance(answer, dict) else None
    invalid: set[str] = set()
    for entry in logs if isinstance(logs, list) else []:
        if not isinstance(entry, dict) or entry.get("type") != "failed-push":
            continue
        error = str(entry.get("error", "")).lower().replace(" ", "")
        if any(marker in error for marker in _INVALID_TOKEN_ERRORS):
            invalid.add(str(entry.get("token")))
        else:
            log.warning("push to a %s device failed: %s", entry.get("platform"), entry.get("error"))
    return invalid


def push_sender(settings: Settings) -> PushSender:
    if settings.push_backend == "gorush":
        if not settings.push_url:
            raise ValueError("WARRANTY_PUSH_BACKEND=gorush needs WARRANTY_PUSH_URL")
        return GorushPush(settings.push_url, settings.push_timeout)
    return LogPush()
