"""The keys of contract 19's channels, read (or generated into the data folder) when a process starts: a
configured key that is not one stops the start, and no request waits on a file."""

from __future__ import annotations

from app.config import Settings
from app.notifications.notify_urls import target_cipher
from app.notifications.vapid import vapid_key


def ensure_channel_keys(settings: Settings) -> None:
    vapid_key(settings)
    target_cipher(settings)
