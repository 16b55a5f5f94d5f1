"""Inbound email payloads in the three formats, signed as each webhook path expects."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from email.utils import format_datetime
from typing import Any

import httpx

from app.core.clock import utc_now

WEBHOOK_SECRET = "provider-webhook-secret"
RAW_INBOUND_SECRET = "a-raw-standard-webhooks-secret"
WHSEC_KEY = b"\x01\x02 sixteen+ key bytes \xff\xfe"
WHSEC_SECRET = "whsec_" + base64.b64encode(WHSEC_KEY).decode()
# The settings that check what `post_provider` and `post_standard` sign: spread into a settings mark.
SECRETS: dict[str, Any] = {"webhook_secret": WEBHOOK_SECRET, "inbound_secret": RAW_INBOUND_SECRET}

REPLY = (
    "Yes, the part arrived.\n\n"
    "On Mon, Jan 5, 2026 at 10:12 AM Warranty <notifications@warranty.local> wrote:\n"
    "> We shipped the part.\n"
)
REPLY_TEXT = "Yes, the part arrived."
REPLY_HTML = (
    '<div dir="ltr">Yes, the part arrived.</div><div class="gmail_quote"><div class="gmail_attr">'
    "On Mon, Jan 5, 2026 wrote:</div><blockquote>We shipped the part.</blockquote></div>"
)


def claim_address(claim_id: int, domain: str = "warranty.local") -> str:
    return f"claim+{claim_id}@{domain}"


def attachment_item(name: str, data: bytes, content_type: str, fmt: str = "provider") -> dict[str, Any]:
    content = base64.b64encode(data).decode()
    if fmt == "postmark":
        return {"Name": name, "Content": content, "ContentType": content_type, "ContentLength": len(data)}
    return {"filename": name, "content_type": content_type, "content": content}


def provider_event(
    sender: str,
    to: list[str],
    *,
    text: str = REPLY,
    html: str = "",
    email_id: str | None = None,
    message_id: str | None = None,
    headers: dict[str, str] | list[dict[str, str]] | None = None,
    attachments: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Format (a): `{type: "email.received", data: {...}}` (Resend's event with the body inlined)."""
    return {
        "type": "email.received",
        "created_at": utc_now().isoformat(),  # fresh: an email dated before the window is stale
        "data": {
            "email_id": email_id or str(uuid.uuid4()),
            "created_at": utc_now().isoformat(),
            "from": sender,
            "to": to,
            "cc": [],
            "bcc": [],
            "message_id": f"<{message_id or uuid.uuid4().hex}@mail.example.com>",
            "subject": "Re: New message on your claim",
            "text": text,
            "html": html,
            "headers": headers if headers is not None else {},
            "attachments": attachments or [],
        },
    }


def postmark(
    sender: str,
    to: str,
    *,
    text: str = REPLY,
    html: str = "",
    message_id: str | None = None,
    headers: list[dict[str, str]] | None = None,
    attachments: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Format (b): Postmark's inbound webhook JSON."""
    return {
        "FromName": "Ann",
        "MessageStream": "inbound",
        "From": sender,
        "FromFull": {"Email": sender, "Name": "Ann", "MailboxHash": ""},
        "To": to,
        "ToFull": [{"Email": to, "Name": "", "MailboxHash": to.split("+")[-1].split("@")[0]}],
        "Cc": "",
        "CcFull": [],
        "OriginalRecipient": to,
        "Subject": "Re: New message on your claim",
        "MessageID": str(uuid.uuid4()),
        "ReplyTo": "",
        "MailboxHash": "",
        "Date": format_datetime(utc_now()),
        "TextBody": text,
        "HtmlBody": html,
        "StrippedTextReply": "",
        "Tag": "",
        "Headers": [
            {"Name": "X-Spam-Status", "Value": "No"},
            {"Name": "Message-ID", "Value": f"<{message_id or uuid.uuid4().hex}@mail.example.com>"},
            *(headers or []),
        ],
        "Attachments": attachments or [],
    }


def generic(sender: str, to: str, *, text: str = REPLY, html: str = "", **extra: Any) -> dict[str, Any]:
    """Format (c): `{from, to, subject, text, html, headers?, attachments?}`."""
    return {"from": sender, "to": to, "subject": "Re: claim", "text": text, "html": html, **extra}


FORMATS = ["provider", "postmark", "generic"]


def email_in(
    fmt: str,
    sender: str,
    to: str,
    *,
    headers: dict[str, str] | list[dict[str, str]] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """An email to `to` in one of the FORMATS; `headers` given as a dict are listed for Postmark."""
    if fmt == "provider":
        return provider_event(sender, [to], headers=headers, **fields)
    if fmt == "postmark":
        if isinstance(headers, dict):
            headers = [{"Name": name, "Value": value} for name, value in headers.items()]
        return postmark(sender, to, headers=headers, **fields)
    if headers is not None:
        fields["headers"] = headers
    return generic(sender, to, **fields)


def body_of(payload: object) -> bytes:
    return json.dumps(payload).encode()


def provider_headers(body: bytes, provider: str = "resend", secret: str = WEBHOOK_SECRET) -> dict[str, str]:
    signature = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return {"Content-Type": "application/json", f"{provider.capitalize()}-Signature": signature}


def standard_signature(key: bytes, webhook_id: str, timestamp: int | str, body: bytes) -> str:
    signed = f"{webhook_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def standard_headers(
    body: bytes,
    *,
    key: bytes = RAW_INBOUND_SECRET.encode(),
    webhook_id: str | None = None,
    timestamp: int | None = None,
    prefix: str = "webhook",
) -> dict[str, str]:
    webhook_id = webhook_id or f"msg_{uuid.uuid4().hex}"
    timestamp = int(time.time()) if timestamp is None else timestamp
    return {
        "Content-Type": "application/json",
        f"{prefix}-id": webhook_id,
        f"{prefix}-timestamp": str(timestamp),
        f"{prefix}-signature": standard_signature(key, webhook_id, timestamp, body),
    }


async def post_provider(
    client: httpx.AsyncClient, payload: object, provider: str = "resend", secret: str = WEBHOOK_SECRET
) -> httpx.Response:
    body = body_of(payload)
    return await client.post(
        f"/api/webhook/{provider}/inbound", content=body, headers=provider_headers(body, provider, secret)
    )


async def post_standard(
    client: httpx.AsyncClient,
    payload: object,
    *,
    key: bytes = RAW_INBOUND_SECRET.encode(),
    webhook_id: str | None = None,
) -> httpx.Response:
    body = body_of(payload)
    headers = standard_headers(body, key=key, webhook_id=webhook_id)
    return await client.post("/api/inbound/email", content=body, headers=headers)
