"""The three inbound payload formats (docs/api.md §10.2) read into one `InboundEmail`.

(a) a provider event `{type: "email.received", data: {...}}` (Resend's shape, with the body inlined),
(b) Postmark's inbound JSON (`FromFull`, `ToFull`, `TextBody`, ...), (c) a generic `{from, to, ...}`.
Anything that is not one of them, or has a field of the wrong type, is a 400: never a 500.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from app.core.ids import MAX_ID
from app.core.numbers import digits_value, max_digits_of
from app.errors import ValidationFailed
from app.inbound.address_lists import addresses
from app.storage.files import display_file_name

RECEIVED_EVENT = "email.received"


@dataclass(frozen=True)
class InboundAttachment:
    file_name: str
    content_type: str | None
    content: str | None  # base64; None when the provider sent only metadata
    provider_id: str | None = None  # Resend's attachment id, to fetch a metadata-only one
    data: bytes | None = None  # the bytes, once fetched from the provider


@dataclass
class InboundEmail:
    provider_email_id: str | None
    message_id: str | None
    sender: str  # the From address, lower-cased; "" when there is none
    recipients: list[str]  # To addresses (then Cc), lower-cased, in order
    subject: str = ""
    text: str = ""
    html: str = ""
    headers: dict[str, str] = field(default_factory=dict)  # lower-cased names, first occurrence wins
    attachments: list[InboundAttachment] = field(default_factory=list)
    mailbox_hash: str = ""  # Postmark's `+` part of the recipient address
    body_missing: bool = False  # a metadata-only event (Resend's): the body is fetched from the provider


class NotAnEmail(Exception):
    """A well-formed event that is not a received email (e.g. `email.delivered`): nothing to do."""


def unreadable(problem: str) -> ValidationFailed:
    return ValidationFailed(f"The payload is not a readable inbound email: {problem}.")


PROVIDER_EVENT, POSTMARK, GENERIC = "provider event", "Postmark", "generic"
# Paths that read one format only. Postmark's Basic credentials prove a post is Postmark's: its own JSON,
# never another provider's event (a metadata-only one would make us spend Resend's API key).
_ONLY_FORMAT = {"postmark": POSTMARK}


def format_of(payload: object) -> str | None:
    """Which of the three formats `payload` is (by its keys), or None."""
    if not isinstance(payload, dict):
        return None
    if "data" in payload and "type" in payload:
        return PROVIDER_EVENT
    if any(key in payload for key in ("FromFull", "ToFull", "TextBody", "HtmlBody")):
        return POSTMARK
    if "from" in payload:
        return GENERIC
    return None


def check_path_format(provider: str, payload: object) -> None:
    """400 unless the provider's path reads `payload`'s format: Postmark's path reads Postmark's JSON only,
    every other path all three."""
    only = _ONLY_FORMAT.get(provider.lower())
    if only is not None and format_of(payload) != only:
        raise unreadable(f"this path reads {only}'s inbound JSON only")


def parse_payload(payload: object) -> InboundEmail:
    """Recognise the format and read it; 400 (ValidationFailed) when it cannot be read."""
    if not isinstance(payload, dict):
        raise unreadable("expected a JSON object")
    found = format_of(payload)
    if found == PROVIDER_EVENT:
        return _provider_event(payload)
    if found == POSTMARK:
        return _postmark(payload)
    if found == GENERIC:
        return _generic(payload)
    raise unreadable("no known format (provider event, Postmark or generic)")


def _provider_event(payload: dict[str, Any]) -> InboundEmail:
    if payload["type"] != RECEIVED_EVENT:
        raise NotAnEmail(str(payload["type"]))
    data = payload["data"]
    if not isinstance(data, dict):
        raise unreadable("data must be an object")
    headers = read_headers(data.get("headers"))
    return InboundEmail(
        provider_email_id=_opt_str(data.get("id") or data.get("email_id"), "data.id"),
        message_id=_message_id(
            data.get("message_id") or headers.get("message-id") or headers.get("message_id")
        ),
        sender=_first_address(_str(data.get("from"), "data.from")),
        recipients=_addresses(data.get("to"), "data.to") + _addresses(data.get("cc"), "data.cc"),
        subject=_str(data.get("subject"), "data.subject"),
        text=_str(data.get("text"), "data.text"),
        html=_str(data.get("html"), "data.html"),
        headers=headers,
        attachments=read_attachments(data.get("attachments"), ("filename", "content_type", "content")),
        body_missing=not any(key in data for key in ("text", "html")),
    )


def _postmark(payload: dict[str, Any]) -> InboundEmail:
    headers = read_headers(payload.get("Headers"))
    from_full = payload.get("FromFull")
    if from_full is not None and not isinstance(from_full, dict):
        raise unreadable("FromFull must be an object")
    sender = _str((from_full or {}).get("Email"), "FromFull.Email") or _str(payload.get("From"), "From")
    return InboundEmail(
        provider_email_id=_opt_str(payload.get("MessageID"), "MessageID"),
        message_id=_message_id(headers.get("message-id")),
        sender=_first_address(sender),
        recipients=_postmark_addresses(payload, "To") + _postmark_addresses(payload, "Cc"),
        subject=_str(payload.get("Subject"), "Subject"),
        text=_str(payload.get("TextBody"), "TextBody"),
        html=_str(payload.get("HtmlBody"), "HtmlBody"),
        headers=headers,
        attachments=read_attachments(payload.get("Attachments"), ("Name", "ContentType", "Content")),
        mailbox_hash=_str(payload.get("MailboxHash"), "MailboxHash").strip(),
    )


def _generic(payload: dict[str, Any]) -> InboundEmail:
    headers = read_headers(payload.get("headers"))
    return InboundEmail(
        provider_email_id=_opt_str(payload.get("id") or payload.get("email_id"), "id"),
        message_id=_message_id(payload.get("message_id") or headers.get("message-id")),
        sender=_first_address(_str(payload.get("from"), "from")),
        recipients=_addresses(payload.get("to"), "to") + _addresses(payload.get("cc"), "cc"),
        subject=_str(payload.get("subject"), "subject"),
        text=_str(payload.get("text"), "text"),
        html=_str(payload.get("html"), "html"),
        headers=headers,
        attachments=read_attachments(payload.get("attachments"), ("filename", "content_type", "content")),
    )


def _str(value: object, name: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise unreadable(f"{name} must be a string")
    return value


def _opt_str(value: object, name: str) -> str | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    return _str(value, name).strip() or None


def _message_id(value: object) -> str | None:
    text = _str(value, "message_id").strip()
    return text.strip("<>").strip() or None


def _addresses(value: object, name: str) -> list[str]:
    """A string (possibly comma-separated) or a list of strings, display names allowed."""
    if value is None:
        return []
    if isinstance(value, str):
        values = [value]
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        values = value
    else:
        raise unreadable(f"{name} must be a string or a list of strings")
    return [address.lower() for address in addresses(values) if "@" in address]


def _first_address(value: str) -> str:
    found = _addresses(value, "from")
    return found[0] if found else ""


def _postmark_addresses(payload: dict[str, Any], name: str) -> list[str]:
    full = payload.get(f"{name}Full")
    if full is None:
        return _addresses(payload.get(name), name)
    if not isinstance(full, list) or not all(isinstance(item, dict) for item in full):
        raise unreadable(f"{name}Full must be a list of objects")
    return _addresses([_str(item.get("Email"), f"{name}Full.Email") for item in full], f"{name}Full")


def read_headers(value: object) -> dict[str, str]:
    """A {name: value} object or a list of {name, value} / {Name, Value} items."""
    if value is None:
        return {}
    pairs: list[tuple[object, object]]
    if isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, list) and all(isinstance(item, dict) for item in value):
        pairs = [(item.get("name", item.get("Name")), item.get("value", item.get("Value"))) for item in value]
    else:
        raise unreadable("headers must be an object or a list of {name, value}")
    headers: dict[str, str] = {}
    for name, header_value in pairs:
        if isinstance(name, str) and isinstance(header_value, str | int):
            headers.setdefault(name.strip().lower(), str(header_value))
    return headers


_CONTENT_TYPE_KEYS = ("contentType", "ContentType", "content_type")


def read_attachments(value: object, keys: tuple[str, str, str]) -> list[InboundAttachment]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise unreadable("attachments must be a list of objects")
    name_key, type_key, content_key = keys
    found: list[InboundAttachment] = []
    for item in value:
        content_type = item.get(type_key)
        if content_type is None:
            content_type = next((item[key] for key in _CONTENT_TYPE_KEYS if key in item), None)
        content = item.get(content_key)
        provider_id = item.get("id")
        name = item.get(name_key)
        found.append(
            InboundAttachment(
                file_name=display_file_name(name if isinstance(name, str) else None, ""),
                content_type=content_type if isinstance(content_type, str) else None,
                content=content if isinstance(content, str) else None,
                provider_id=provider_id if isinstance(provider_id, str) and provider_id else None,
            )
        )
    return found


# A claim address whose id has more digits than any claim's: no claim has it (404, as any unknown id).
NO_CLAIM_ID = MAX_ID + 1
_MAX_CLAIM_DIGITS = max_digits_of(MAX_ID)


def _claim_id(digits: str) -> int:
    found = digits_value(digits, _MAX_CLAIM_DIGITS)
    return NO_CLAIM_ID if found is None else found


def claim_id_from(recipients: list[str], mail_domain: str, mailbox_hash: str = "") -> int | None:
    """The claim of the first recipient `claim+<id>@{mail_domain}` (case-insensitive, ASCII digits); else
    Postmark's `MailboxHash` when it is a claim id (the `+` part of an address Postmark received for us);
    or None. An id longer than the largest id is `NO_CLAIM_ID`, never converted."""
    pattern = re.compile(rf"claim\+([0-9]+)@{re.escape(mail_domain)}", re.IGNORECASE)
    for address in recipients:
        match = pattern.fullmatch(address.strip())
        if match:
            return _claim_id(match.group(1))
    if mailbox_hash.isascii() and mailbox_hash.isdigit():
        return _claim_id(mailbox_hash)
    return None
