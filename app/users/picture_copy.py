"""Profile pictures are re-encoded before they are stored: what is served carries no metadata of the
upload (EXIF with its GPS position, XMP, ICC profile, comments, PNG text chunks), in the uploaded format.
Decoded like every upload, within its pixel limit and the process's decode slots (app.storage.images); an
animation is stored as its first frame."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import anyio
from PIL import Image, ImageOps

from app.storage.images import DECODES, decode, opened

# What the re-encoded picture keeps of what the decoder read: how to draw it, nothing about where or by whom.
_DRAWING = ("transparency", "background")
_SAVE: dict[str, tuple[str, dict[str, object]]] = {
    "jpg": ("JPEG", {"quality": 90}),
    "png": ("PNG", {}),
    "gif": ("GIF", {}),
    "webp": ("WEBP", {"quality": 90}),
}


async def clean_copy(data: bytes, extension: str, max_pixels: int) -> bytes:
    """The image's first frame decoded and encoded again in its own format, without EXIF, XMP, ICC,
    comments or text chunks (no GPS position, camera or software), turned upright by its EXIF orientation
    first. An animation is within `max_pixels` in all its frames (app.storage.images) and becomes its first
    frame: a GIF stays a GIF, of one frame."""
    return await anyio.to_thread.run_sync(_reencode, data, extension, max_pixels, limiter=DECODES.limiter)


def _reencode(data: bytes, extension: str, max_pixels: int) -> bytes:
    image, _frames = opened(data, max_pixels)
    with image:
        decode(image)
        first = _clean(ImageOps.exif_transpose(image), image.info)
    out = io.BytesIO()
    pillow_format, options = _SAVE[extension]
    first.save(out, pillow_format, **options)
    return out.getvalue()


def _clean(frame: Image.Image, info: Mapping[Any, Any]) -> Image.Image:
    frame.info = {key: info[key] for key in _DRAWING if key in info}
    return frame
