"""Resend's receiving API: the body, headers and first allowed attachment of a metadata-only event.

Resend's `email.received` webhook carries metadata only. `GET {api}/emails/receiving/{email_id}` answers
the email (`text`, `html`, `headers`, attachments' metadata); `GET .../attachments/{id}` answers an
attachment's `download_url`, a pre-signed link fetched without our API key (app/inbound/downloads.py:
https, on an address the outbound rules allow). Resend unreachable, slow or failing, or an answer over its
limit or unreadable, is `ServiceUnavailable` (503: Resend retries the webhook, nothing is lost); an email it
no longer knows is `None` (the caller ignores the delivery).

Ids are put in paths only when they are ids (letters, digits, `_` and `-`, at most 100), URL-encoded all
the same: an event's `email_id` of `../../api-keys` must not send our key to another endpoint. An email
id that is not one is `InvalidProviderId` (the delivery is ignored); an attachment id, that attachment.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from typing import Any
from urllib.parse import quote

import httpx

from app.config import Settings
from app.errors import ServiceUnavailable, ValidationFailed
from app.inbound import downloads
from app.inbound.attachment_choice import ALLOWED
from app.inbound.formats import InboundAttachment, InboundEmail, read_attachments, read_headers, unreadable

logger = logging.getLogger("warranty.inbound")

RETRY_AFTER_SECONDS = 60
_MAX_DOWNLOADS = 3  # attachments tried before giving up on one (the rest are ignored anyway)
_MAX_ATTACHMENT_JSON = 64 * 1024  # an attachment's metadata and link: well under a kilobyte in practice
_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")
_TYPES = {"image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "application/pdf": "pdf"}


class ResendUnavailable(ServiceUnavailable):
    message = "The email provider's API cannot be reached now; retry later."

    def __init__(self, reason: str) -> None:
        logger.warning("Resend receiving API unavailable: %s", reason)
        super().__init__(headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


class InvalidProviderId(Exception):
    """The event's email id cannot be Resend's: nothing is asked of Resend, the delivery is ignored."""

    reason = "invalid_provider_id"


class _Gone(Exception):
    """Resend answered 404: it does not know this email (or attachment)."""


def _segment(provider_id: str | None) -> str | None:
    """`provider_id` as a path segment, or None when it is not an id."""
    return quote(provider_id, safe="") if provider_id and _ID.fullmatch(provider_id) else None


async def _get_json(client: httpx.AsyncClient, url: str, key: str, limit: int) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {key}", **downloads.AS_SENT}
    try:
        async with client.stream("GET", url, headers=headers) as response:
            if response.status_code == 404:
                raise _Gone()
            if response.status_code != 200:
                # 5xx and 429 are Resend's trouble; 401/403 a key to fix: either way a retry can succeed.
                raise ResendUnavailable(f"HTTP {response.status_code} on GET {url}")
            body = await downloads.read_at_most(response, limit)
    except httpx.HTTPError as error:
        raise ResendUnavailable(f"{type(error).__name__} on GET {url}") from None
    if body is None:
        raise ResendUnavailable(f"an answer over {limit} bytes, or encoded, on GET {url}")
    try:
        answer = json.loads(body)
    except (ValueError, RecursionError):
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


async def _first_attachment(
    client: httpx.AsyncClient, base: str, key: str, items: list[InboundAttachment], settings: Settings
) -> list[InboundAttachment]:
    """The first attachment of an allowed kind whose bytes could be fetched, as a one-item list."""
    max_size = settings.max_inbound_attachment_size
    for item in [item for item in items if _wanted(item)][:_MAX_DOWNLOADS]:
        attachment_id = _segment(item.provider_id)
        if attachment_id is None:
            logger.warning("a Resend attachment id that is not an id: %.120r", item.provider_id)
            continue
        try:
            detail = await _get_json(client, f"{base}/attachments/{attachment_id}", key, _MAX_ATTACHMENT_JSON)
        except _Gone:
            continue
        url, size = detail.get("download_url"), detail.get("size")
        if not isinstance(url, str) or (isinstance(size, int) and size > max_size):
            continue
        try:
            data = await downloads.download(
                url,
                max_size=max_size,
                allow_private=settings.webhook_allow_private,
                seconds=settings.resend_timeout,
            )
        except downloads.Unavailable as error:
            raise ResendUnavailable(f"{error} downloading an attachment") from None
        if data:
            return [dataclasses.replace(item, data=data)]
    return []


async def fetch_received(email: InboundEmail, settings: Settings) -> InboundEmail | None:
    """`email` with its body, headers and first allowed attachment from Resend; None when Resend says 404.
    The email answer may be as large as a request body (`max_body_size`), as the same event inlined."""
    email_id = _segment(email.provider_email_id)
    if email_id is None:
        logger.warning("inbound email ignored: its Resend id is not an id: %.120r", email.provider_email_id)
        raise InvalidProviderId()
    key = settings.resend_api_key.get_secret_value()
    base = f"{settings.resend_api_url.rstrip('/')}/emails/receiving/{email_id}"
    async with httpx.AsyncClient(timeout=settings.resend_timeout, follow_redirects=False) as client:
        try:
            received = await _get_json(client, base, key, settings.max_body_size)
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
        attachments = await _first_attachment(client, base, key, items or email.attachments, settings)
    return dataclasses.replace(
        email,
        text=text,
        html=html,
        headers={**found_headers, **email.headers},
        attachments=attachments,
        body_missing=False,
    )
