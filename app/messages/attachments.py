"""An attachment as the send endpoint receives it (docs/api.md §6.5): a base64 data URL or bare base64,
decoded and checked against what the client declares. The bytes' kind is checked when posting (service)."""

from __future__ import annotations

import base64
import binascii
import re

from app.errors import PayloadTooLarge, UnsupportedMediaType, ValidationFailed
from app.messages.schemas import AttachmentIn
from app.messages.service import AttachmentUpload

_WHITESPACE = re.compile(r"\s+")


def _mime(value: str) -> str:
    mime = value.split(";")[0].strip().lower()
    return "image/jpeg" if mime in ("image/jpg", "image/pjpeg") else mime


def _split_data_url(data_url: str) -> tuple[str | None, str]:
    """(the mime type the URL names or None, the base64 text)."""
    if data_url[:5].lower() != "data:":
        return None, data_url
    header, comma, payload = data_url[5:].partition(",")
    parameters = [part.strip().lower() for part in header.split(";")]
    if not comma or parameters[-1] != "base64":
        raise ValidationFailed.field("attachment.dataUrl", "must be data:<mime>;base64,<data> or base64")
    return (_mime(parameters[0]) or None) if len(parameters) > 1 else None, payload


def decode_attachment(attachment: AttachmentIn, max_size: int) -> AttachmentUpload:
    """400 for data that is not base64, empty, or not the declared `size`; 415 when the data URL and
    `mimeType` name different types; 413 when the encoded text alone is over the limit."""
    url_mime, text = _split_data_url(attachment.data_url)
    text = _WHITESPACE.sub("", text)
    if len(text) // 4 * 3 > max_size + 3:
        raise PayloadTooLarge(
            f"The attachment is larger than {max_size} bytes.", details={"maxBytes": max_size}
        )
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ValidationFailed.field("attachment.dataUrl", "is not valid base64") from None
    if not data:
        raise ValidationFailed.field("attachment.dataUrl", "is empty")
    if attachment.size is not None and attachment.size != len(data):
        raise ValidationFailed.field(
            "attachment.size", f"says {attachment.size} bytes but the data has {len(data)}"
        )
    declared = attachment.mime_type
    if declared and url_mime and _mime(declared) != url_mime:
        raise UnsupportedMediaType(f"The data URL says {url_mime} but mimeType says {declared}.")
    return AttachmentUpload(data=data, file_name=attachment.file_name, mime_type=declared or url_mime)
