"""Decoding uploaded images, bounded: each use has its pixel limit, checked from the image's header before
a single pixel is decoded, and at most WARRANTY_IMAGE_DECODES decodes run at once per process, each in a
worker thread (never on the event loop). A 154 KB PNG can declare 6300 x 6300 pixels: decoding it took
the server 96 MB more, so the limit is what stops it, and the slots bound many of them at once."""

from __future__ import annotations

import io

import anyio
from PIL import Image, UnidentifiedImageError

from app.errors import PayloadTooLarge, UnsupportedMediaType

PILLOW_FORMATS = {"JPEG": "jpg", "PNG": "png", "GIF": "gif", "WEBP": "webp"}


class DecodeSlots:
    """The process's decode slots: a capacity limiter for the worker threads, made on first use (it
    belongs to the running event loop) and resized by `configure` (the app sets it from settings)."""

    def __init__(self, slots: int = 2) -> None:
        self.slots = slots
        self._limiter: anyio.CapacityLimiter | None = None

    def configure(self, slots: int) -> None:
        self.slots = slots
        if self._limiter is not None:
            self._limiter.total_tokens = slots

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.slots)
        return self._limiter


DECODES = DecodeSlots()


async def verify_image(data: bytes, extension: str, max_pixels: int) -> None:
    """Decodes the image to prove it is one of `extension`'s kind: 413 over `max_pixels` (before
    decoding), 415 when it is not a readable image of that kind."""
    await anyio.to_thread.run_sync(_verify, data, extension, max_pixels, limiter=DECODES.limiter)


def _verify(data: bytes, extension: str, max_pixels: int) -> None:
    with opened(data, max_pixels) as image:
        if PILLOW_FORMATS.get(image.format or "") != extension:
            raise UnsupportedMediaType("The file is not the image its header says.")
        decode(image)


def opened(data: bytes, max_pixels: int) -> Image.Image:
    """The image, opened (its header read, no pixel decoded) and within `max_pixels`; else 413 / 415."""
    try:
        image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        # Pillow refuses on opening what declares far more pixels than its own limit: a bomb is too large.
        raise _too_large(max_pixels) from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise UnsupportedMediaType("The file is not a readable image.") from exc
    width, height = image.size
    if width * height > max_pixels:
        image.close()
        raise _too_large(max_pixels, f"The image is {width}x{height} pixels; ")
    return image


def decode(image: Image.Image) -> None:
    """Decodes the pixels: a truncated or corrupt image fails here (415)."""
    try:
        image.load()
    except (OSError, SyntaxError, ValueError) as exc:
        raise UnsupportedMediaType("The file is not a readable image.") from exc


def _too_large(
    max_pixels: int, said: str = "The image declares more pixels than accepted; "
) -> PayloadTooLarge:
    return PayloadTooLarge(
        f"{said}at most {max_pixels} pixels are accepted.", details={"maxPixels": max_pixels}
    )
