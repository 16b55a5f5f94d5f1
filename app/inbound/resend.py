"""Resend's receiving API: the body, headers and first allowed attachment of a metadata-only event.

Resend's `email.received` webhook carries metadata only. `GET {api}/emails/receiving/{email_id}` answers
the email (`text`, `html`, `headers`, attachments' metadata); `GET .../attachments/{id}` answers an
attachment's `download_url`, a pre-signed link fetched without our API key. Resend unreachable, slow or
failing is `ServiceUnavailable` (503: Resend retries the webhook, nothing is lost); an email it no longer
knows is `None` (the caller ignores the delivery).
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import httpx

from app.config import Settings
from app.errors import ServiceUnavailable, ValidationFailed
from app.inbound.attachments import ALLOWED
from app.inbound.formats import InboundAttachment, InboundEmail, read_attachments, read_headers, unreadable

logger = logging.getLogger("warranty.inbound")

RETRY_AFTER_SECONDS = 60
_MAX_DOWNLOADS = 3  # attachments tried before giving up on one (the rest are ignored anyway)
_MAX_JSON = 32 * 1024 * 1024
_TYPES = {"image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "application/pdf": "pdf"}


class ResendUnavailable(ServiceUnavailable):
    message = "The email provider's API cannot be reached now; retry later."

    def __init__(self, reason: str) -> None:
        logger.warning("Resend receiving API unavailable: %s", reason)
        super().__init__(headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


class _Gone(Exception):
    """Resend answered 404: it does not know this email (or attachment)."""


async def _get_json(client: httpx.AsyncClient, url: str, key: str) -> dict[str, Any]:
    try:
        response = await client.get(url, headers={"Authorization": f"Bearer {key}"})
    except httpx.HTTPError as error:
        raise ResendUnavailable(f"{type(error).__name__} on GET {url}") from None
    if response.status_code == 404:
        raise _Gone()
    if response.status_code != 200:
        # 5xx and 429 are Resend's trouble; 401/403 a key to fix: either way a retry later can succeed.
        raise ResendUnavailable(f"HTTP {response.status_code} on GET {url}")
    if len(response.content) > _MAX_JSON:
        raise ResendUnavailable(f"answer over {_MAX_JSON} bytes on GET {url}")
    try:
        answer = response.json()
    except ValueError:
        raise ResendUnavailable(f"an answer that is not JSON on GET {url}") from None
    if not isinstance(answer, dict):
        raise ResendUnavailable(f"an answer that is not a JSON object on GET {url}")
    return answer


def _wanted(item: InboundAttachment) -> bool:
    declared = (item.content_type or "").split(";")[0].strip().lower()
    extension = item.file_name.rsplit(".", 1)[-1].lower() if "." in item.file_name else ""
    return item.provider_id is not None and (
        _TYPES.get(declared) in ALLOWED or extension in ALLOWED | {"jpeg"}
    )


async def _download(client: httpx.AsyncClient, url: str, max_size: int) -> bytes | None:
    """The bytes at a pre-signed URL, or None when they are over `max_size` or gone."""
    try:
        async with client.stream("GET", url) as response:
            if response.status_code in (403, 404, 410):  # expired or removed: that file is skipped
                return None
            if response.status_code != 200:
                raise ResendUnavailable(f"HTTP {response.status_code} downloading an attachment")
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > max_size:
                    return None
                chunks.append(chunk)
            return b"".join(chunks)
    except httpx.HTTPError as error:
        raise ResendUnavailable(f"{type(error).__name__} downloading an attachment") from None


async def _first_attachment(
    client: httpx.AsyncClient, base: str, key: str, items: list[InboundAttachment], max_size: int
) -> list[InboundAttachment]:
    """The first attachment of an allowed kind whose bytes could be fetched, as a one-item list."""
    for item in [item for item in items if _wanted(item)][:_MAX_DOWNLOADS]:
        try:
            detail = await _get_json(client, f"{base}/attachments/{item.provider_id}", key)
        except _Gone:
            continue
        url, size = detail.get("download_url"), detail.get("size")
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            continue
        if isinstance(size, int) and size > max_size:
            continue
        data = await _download(client, url, max_size)
        if data:
            return [dataclasses.replace(item, data=data)]
    return []


async def fetch_received(email: InboundEmail, settings: Settings) -> InboundEmail | None:
    """`email` with its body, headers and first allowed attachment from Resend; None when Resend says 404."""
    key = settings.resend_api_key.get_secret_value()
    base = f"{settings.resend_api_url.rstrip('/')}/emails/receiving/{email.provider_email_id}"
    async with httpx.AsyncClient(timeout=settings.resend_timeout, follow_redirects=False) as client:
        try:
            received = await _get_json(client, base, key)
        except _Gone:
            return None
        try:
            text, html = received.get("text") or "", received.get("html") or ""
            if not isinstance(text, str) or not isinstance(html, str):
                raise unreadable("text and html must be strings")
            found_headers = read_headers(received.get("headers"))
            items = read_attachments(received.get("attachments"), ("filename", "content_type", "content"))
        except ValidationFailed as error:
            raise ResendUnavailable(f"an unreadable email from Resend ({error})") from None
        attachments = await _first_attachment(
            client, base, key, items or email.attachments, settings.max_inbound_attachment_size
        )
    return dataclasses.replace(
        email,
        text=text,
        html=html,
        headers={**found_headers, **email.headers},
        attachments=attachments,
        body_missing=False,
    )
