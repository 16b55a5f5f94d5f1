"""Profile pictures are re-encoded before they are stored: what is served carries no metadata of the
upload (EXIF with its GPS position, XMP, ICC profile, comments, PNG text chunks), in the uploaded format.
Decoded like every upload, within its pixel limit and the process's decode slots (app.core.images)."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import anyio
from PIL import Image, ImageOps

from app.core.images import DECODES, decode, opened
from app.errors import PayloadTooLarge

# What a re-encoded frame keeps of what the decoder read: how to draw it, nothing about where or by whom.
_DRAWING = ("transparency", "duration", "loop", "disposal", "background")
_SAVE: dict[str, tuple[str, dict[str, object]]] = {
    "jpg": ("JPEG", {"quality": 90}),
    "png": ("PNG", {}),
    "gif": ("GIF", {}),
    "webp": ("WEBP", {"quality": 90}),
}


async def clean_copy(data: bytes, extension: str, max_pixels: int) -> bytes:
    """The image decoded and encoded again in its own format, without EXIF, XMP, ICC, comments or text
    chunks (no GPS position, camera or software), turned upright by its EXIF orientation first. Every
    frame of an animation is kept, all frames together within `max_pixels` (else 413)."""
    return await anyio.to_thread.run_sync(_reencode, data, extension, max_pixels, limiter=DECODES.limiter)


def _reencode(data: bytes, extension: str, max_pixels: int) -> bytes:
    with opened(data, max_pixels) as image:
        count = getattr(image, "n_frames", 1)
        if count * image.width * image.height > max_pixels:
            raise PayloadTooLarge(
                f"The animation has {count} frames of {image.width}x{image.height} pixels; at most "
                f"{max_pixels} pixels in all are accepted.",
                details={"maxPixels": max_pixels},
            )
        frames = []
        for index in range(count):
            image.seek(index)
            decode(image)
            upright = ImageOps.exif_transpose(image) if count == 1 else image.copy()
            frames.append(_clean(upright, image.info))
    out = io.BytesIO()
    pillow_format, options = _SAVE[extension]
    if count > 1:
        options = {**options, "save_all": True, "append_images": frames[1:]}
    frames[0].save(out, pillow_format, **options)
    return out.getvalue()


def _clean(frame: Image.Image, info: Mapping[Any, Any]) -> Image.Image:
    frame.info = {key: info[key] for key in _DRAWING if key in info}
    return frame
