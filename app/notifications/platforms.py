"""The platforms a device token is registered for (how each is pushed: app.notifications.push)."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal


class Platform(StrEnum):
    IOS = "ios"
    ANDROID = "android"
    WEB = "web"  # an FCM registration token, pushed the Android way


# As POST /api/devices takes it (tests/notifications/test_vocabularies.py holds it equal to `Platform`).
PlatformName = Literal["ios", "android", "web"]
