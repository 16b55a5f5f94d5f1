"""Uploaded files are typed by their bytes, not by what the client says they are."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from urllib.parse import quote

from fastapi import UploadFile

from app.errors import PayloadTooLarge, UnsupportedMediaType
from app.storage.images import verify_image


@dataclass(frozen=True)
class FileKind:
    extension: str  # canonical: jpg, png, gif, webp, pdf
    mime_type: str
    is_image: bool


PDF = FileKind("pdf", "application/pdf", False)
JPG = FileKind("jpg", "image/jpeg", True)
PNG = FileKind("png", "image/png", True)
GIF = FileKind("gif", "image/gif", True)
WEBP = FileKind("webp", "image/webp", True)
KINDS = {kind.extension: kind for kind in (PDF, JPG, PNG, GIF, WEBP)}
_EXTENSION_ALIASES = {"jpeg": "jpg", "jpe": "jpg"}


def sniff(data: bytes) -> FileKind | None:
    """The kind of file by its magic numbers, or None."""
    if data.startswith(b"%PDF-"):
        return PDF
    if data.startswith(b"\xff\xd8\xff"):
        return JPG
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return GIF
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return WEBP
    return None


def display_file_name(raw: str | None, default: str) -> str:
    """A client's file name as the service shows it (docs/api.md): NFC, the folder part dropped, every run
    of whitespace, control or unprintable characters and double quotes one space, spaces and dots trimmed
    at both ends, at most 255 characters with the extension kept; `default` when nothing is left."""
    name = unicodedata.normalize("NFC", raw or "").replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(char if char.isprintable() and char != '"' else " " for char in name)
    name = " ".join(name.split()).strip(" .")
    if not name:
        return default
    if len(name) > 255:
        stem, dot, suffix = name.rpartition(".")
        name = f"{stem[: 254 - len(suffix)]}.{suffix}" if dot and len(suffix) <= 16 else name[:255]
    return name


def extension_of(file_name: str) -> str:
    extension = file_name.rsplit(".", 1)[-1].lower() if "." in file_name else ""
    return _EXTENSION_ALIASES.get(extension, extension)


async def check_file(
    data: bytes,
    *,
    allowed: set[str],
    max_size: int,
    max_pixels: int,
    file_name: str | None = None,
    declared_mime: str | None = None,
) -> FileKind:
    """The file's kind, if its bytes are an allowed kind that agrees with its name and declared type.

    413 when too large (bytes or pixels); 415 when the kind is not allowed or the name or declared type
    says otherwise than the bytes; images are decoded to prove they are images.
    """
    if len(data) > max_size:
        raise PayloadTooLarge(f"The file is larger than {max_size} bytes.", details={"maxBytes": max_size})
    kind = sniff(data)
    allowed_list = ", ".join(sorted(allowed))
    if kind is None or kind.extension not in allowed:
        raise UnsupportedMediaType(f"Allowed file types: {allowed_list}.")
    if file_name is not None and extension_of(file_name) != kind.extension:
        raise UnsupportedMediaType(
            f"The file name says .{extension_of(file_name)} but the file is {kind.extension}."
        )
    if declared_mime is not None and _normal_mime(declared_mime) != kind.mime_type:
        raise UnsupportedMediaType(
            f"The declared type {declared_mime} does not match the file ({kind.mime_type})."
        )
    if kind.is_image:
        await verify_image(data, kind.extension, max_pixels)
    return kind


def _normal_mime(mime: str) -> str:
    mime = mime.split(";")[0].strip().lower()
    return "image/jpeg" if mime in ("image/jpg", "image/pjpeg") else mime


# Part types that say nothing about the file (browsers and curl send them for anything).
_GENERIC_MIMES = {"", "application/octet-stream", "binary/octet-stream"}


async def read_upload(
    upload: UploadFile, *, allowed: set[str], max_size: int, max_pixels: int
) -> tuple[bytes, FileKind]:
    """A multipart file's bytes and kind, checked by `check_file`. Its name is held against the bytes
    only when it has an extension (browsers send `blob`), its part type only when it says something."""
    data = await upload.read(max_size + 1)  # one byte over the limit is enough to know
    mime = (upload.content_type or "").split(";")[0].strip().lower()
    kind = await check_file(
        data,
        allowed=allowed,
        max_size=max_size,
        max_pixels=max_pixels,
        file_name=upload.filename if upload.filename and "." in upload.filename else None,
        declared_mime=None if mime in _GENERIC_MIMES else mime,
    )
    return data, kind


def content_disposition(file_name: str) -> str:
    """`attachment` with an ASCII fallback name and the exact name in RFC 5987 form."""
    fallback = "".join(c if c.isascii() and c.isprintable() and c not in '"\\;' else "_" for c in file_name)
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(file_name, safe='')}"
