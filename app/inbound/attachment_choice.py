"""The one attachment an email may bring into a claim: the first allowed one, the rest ignored."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from app.config import Settings
from app.errors import AppError
from app.inbound.formats import InboundAttachment
from app.storage.files import check_file, extension_of, sniff

# Email attachments: no webp (docs/api.md §10.2), unlike messages sent through the API.
ALLOWED = {"jpg", "png", "gif", "pdf"}
_GENERIC_TYPES = {"", "application/octet-stream", "binary/octet-stream", "application/unknown"}


@dataclass(frozen=True)
class PickedAttachment:
    data: bytes
    file_name: str
    mime_type: str


def _decode(content: str) -> bytes | None:
    try:
        return base64.b64decode("".join(content.split()), validate=True)
    except (binascii.Error, ValueError):
        return None


async def _accept(item: InboundAttachment, settings: Settings) -> PickedAttachment | None:
    max_size = settings.max_inbound_attachment_size
    if item.data is not None:  # fetched from the provider
        data: bytes | None = item.data
    # Metadata only, or certainly too large (base64 is 4/3 of the bytes, plus line breaks): not decoded.
    elif not item.content or len(item.content) > max_size * 2 + 1024:
        return None
    else:
        data = _decode(item.content)
    if data is None or not data or len(data) > max_size:
        return None
    kind = sniff(data)
    if kind is None or kind.extension not in ALLOWED:
        return None
    # A name without an extension gets the one its bytes say; a contradicting name or type is refused.
    name = item.file_name or f"attachment.{kind.extension}"
    if not extension_of(name):
        name = f"{name}.{kind.extension}"
    declared = (item.content_type or "").split(";")[0].strip().lower()
    try:
        await check_file(
            data,
            allowed=ALLOWED,
            max_size=max_size,
            max_pixels=settings.max_image_pixels,
            file_name=name,
            declared_mime=None if declared in _GENERIC_TYPES else declared,
        )
    except AppError:
        return None
    return PickedAttachment(data=data, file_name=name, mime_type=kind.mime_type)


async def pick_attachment(items: list[InboundAttachment], settings: Settings) -> PickedAttachment | None:
    """The first attachment that is an allowed kind (by its bytes) within the size limit, or None."""
    for item in items:
        picked = await _accept(item, settings)
        if picked is not None:
            return picked
    return None
