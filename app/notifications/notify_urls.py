"""Notification URLs (contract 19.2): a user's own channels as Apprise URLs (`ntfys://ntfy.example.com/topic`,
`gotify://host/token`, `tgram://bot/chat`, ...), checked when added, kept encrypted, sent through Apprise.

- Only the schemes of `WARRANTY_NOTIFY_SCHEMES`; Apprise must understand the URL.
- Self-hosted services (ntfy, Gotify, Matrix and any scheme not in HOSTED) name a host in the URL: it must
  pass the address rules of webhooks (app.core.addresses), when added and again right before each send.
  Apprise makes the request itself (requests), so the check cannot pin the address it connects to: a DNS
  answer that changes within that moment is the one gap left (docs/api.md). Hosted services (Telegram,
  Slack, Discord) go to their fixed public hosts; what their URL names is a token, not a host.
- Stored encrypted with Fernet (AES-128-CBC and HMAC-SHA256, `cryptography`) under `WARRANTY_NOTIFY_KEY`
  (comma-separated keys: the first encrypts, every one decrypts, so a new key goes first and the old one
  stays until the targets are added again), else a key generated once into the data folder (mode 0600).
  A fingerprint (HMAC-SHA256 of the URL under the first key) finds the same URL added twice.
- Shown redacted: the scheme and, for a self-hosted service, its host; never the rest.
- Apprise is blocking (requests): it runs in a thread, off the event loop.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import apprise
import httpx
from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from app.config import Settings
from app.core import addresses
from app.core.private_files import create_private_once

KEY_FILE = "notify_key"
MAX_URL_LENGTH = 2048
# Schemes of hosted services: the URL's "host" is a token, the request goes to the service's public host.
HOSTED = frozenset({"tgram", "slack", "discord", "pushover", "pover", "mailgun", "sendgrid", "twilio"})

log = logging.getLogger(__name__)


class Unusable(ValueError):
    """The URL may not be added (the reason is the text)."""


@dataclass(frozen=True)
class CheckedUrl:
    url: str
    scheme: str
    redacted: str
    host: str | None  # the host the address rules apply to (None: a hosted service)


def scheme_of(url: str) -> str:
    scheme, separator, _ = url.partition("://")
    if not separator or not scheme:
        raise Unusable("must be a URL such as ntfys://ntfy.example.com/topic")
    return scheme.lower()


def parse(url: str, settings: Settings) -> CheckedUrl:
    """The URL's scheme, redacted form and host, if Apprise understands it and its scheme is allowed (no
    network: the address rules are `check_host`'s)."""
    if len(url) > MAX_URL_LENGTH:
        raise Unusable(f"at most {MAX_URL_LENGTH} characters")
    scheme = scheme_of(url)
    if scheme not in settings.notify_schemes:
        raise Unusable(f"the scheme {scheme!r} is not allowed; allowed: {', '.join(settings.notify_schemes)}")
    plugin = _instantiate(url)
    if plugin is None:
        raise Unusable(f"not a {scheme}:// URL Apprise understands")
    host = None if scheme in HOSTED else (str(getattr(plugin, "host", "") or "") or None)
    return CheckedUrl(url, scheme, redact(scheme, host), host)


def _instantiate(url: str) -> Any:
    try:
        return apprise.Apprise.instantiate(url, suppress_exceptions=True)
    except Exception:  # a plugin that chokes on hostile input: not a URL it understands
        return None


def redact(scheme: str, host: str | None) -> str:
    return f"{scheme}://{host}/****" if host else f"{scheme}://****"


async def check_host(checked: CheckedUrl, allow_private: bool) -> None:
    """The self-hosted service's host resolves only to allowed addresses (addresses.Refused otherwise)."""
    if checked.host is None:
        return
    target = httpx.URL(scheme="https", host=checked.host)
    addresses.check_addresses(await addresses.resolve(target), allow_private)


async def checked(url: str, settings: Settings) -> CheckedUrl:
    """`parse` (in a thread: Apprise loads its plugins the first time) and `check_host`; Unusable else."""
    found = await asyncio.to_thread(parse, url, settings)
    try:
        await check_host(found, settings.webhook_allow_private)
    except addresses.Refused as exc:
        raise Unusable(f"the host {exc}") from None
    return found


class TargetCipher:
    """Encrypts and decrypts stored URLs; fingerprints them."""

    def __init__(self, keys: list[bytes]) -> None:
        self._fernet = MultiFernet([Fernet(key) for key in keys])
        self._mac_key = keys[0]

    def encrypt(self, url: str) -> str:
        return self._fernet.encrypt(url.encode()).decode("ascii")

    def decrypt(self, secret: str) -> str | None:
        """The URL, or None when no key decrypts it (a key was dropped)."""
        try:
            return self._fernet.decrypt(secret.encode("ascii")).decode()
        except InvalidToken:
            return None

    def fingerprint(self, url: str) -> str:
        return hmac.new(self._mac_key, url.encode(), hashlib.sha256).hexdigest()


def target_cipher(settings: Settings) -> TargetCipher:
    configured = settings.notify_key.get_secret_value() if settings.notify_key else None
    return _cipher(configured, str(settings.data_dir / KEY_FILE))


@lru_cache(maxsize=4)
def _cipher(configured: str | None, path: str) -> TargetCipher:
    if configured is not None:
        keys = [key.strip().encode("ascii") for key in configured.split(",") if key.strip()]
        try:
            return TargetCipher(keys)
        except ValueError:
            raise ValueError(
                "WARRANTY_NOTIFY_KEY must be Fernet keys (32 bytes, base64url), comma-separated"
            ) from None
    file = Path(path)
    if create_private_once(file, Fernet.generate_key() + b"\n"):
        log.warning("WARRANTY_NOTIFY_KEY is not set: generated the notification URL key in %s", file)
    return TargetCipher([file.read_bytes().strip()])


def _notify(url: str, title: str, body: str, timeout: float) -> bool:
    plugin = apprise.Apprise.instantiate(url, suppress_exceptions=True)
    if plugin is None:
        return False
    plugin.socket_connect_timeout = timeout
    plugin.socket_read_timeout = timeout
    if hasattr(plugin, "discovery"):  # Matrix's .well-known lookup would send to a host nobody checked
        plugin.discovery = False
    sender = apprise.Apprise()
    sender.add(plugin)
    return bool(sender.notify(body=body, title=title))


class NotDelivered(Exception):
    """Apprise could not deliver (the service is down or refused): retried by the outbox."""


async def send(url: str, title: str, body: str, settings: Settings) -> None:
    """Check the host again, then send through Apprise in a thread; Unusable or NotDelivered otherwise."""
    found = await checked(url, settings)
    delivered = await asyncio.to_thread(_notify, found.url, title, body, settings.notify_timeout)
    if not delivered:
        raise NotDelivered(f"{found.redacted} did not accept the notification")
