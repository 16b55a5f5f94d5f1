"""Decoding uploaded images, bounded: each use has its pixel limit, checked from the image's headers before
a single pixel is decoded (an animation's frames count against it, and at most MAX_FRAMES are read), and
at most WARRANTY_IMAGE_DECODES decodes run at once per process, each in a worker thread (never on the
event loop). A 154 KB PNG can declare 6300 x 6300 pixels: decoding it took
the server 96 MB more, so the limit is what stops it, and the slots bound many of them at once."""

from __future__ import annotations

import io

import anyio
from PIL import Image, UnidentifiedImageError

from app.errors import PayloadTooLarge, UnsupportedMediaType, ValidationFailed
from app.storage.image_frames import Frames, frames_of

PILLOW_FORMATS = {"JPEG": "jpg", "PNG": "png", "GIF": "gif", "WEBP": "webp"}
# Frames of an animation that are read; one with more is refused from its headers, none decoded.
MAX_FRAMES = 100


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
    """Decodes the image, every frame of it, to prove it is one of `extension`'s kind: 413 over
    `max_pixels` or MAX_FRAMES (before decoding), 415 when it is not a readable image of that kind."""
    await anyio.to_thread.run_sync(_verify, data, extension, max_pixels, limiter=DECODES.limiter)


def _verify(data: bytes, extension: str, max_pixels: int) -> None:
    image, frames = opened(data, max_pixels)
    with image:
        if PILLOW_FORMATS.get(image.format or "") != extension:
            raise UnsupportedMediaType("The file is not the image its header says.")
        decode(image, frames)


def opened(data: bytes, max_pixels: int) -> tuple[Image.Image, int]:
    """The image, opened (its headers read, no pixel decoded), and its number of frames: at most
    MAX_FRAMES, all of them together within `max_pixels` (frames x width x height); else 413 / 415."""
    try:
        image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        # Pillow refuses on opening what declares far more pixels than its own limit: a bomb is too large.
        raise _too_large(max_pixels) from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise UnsupportedMediaType("The file is not a readable image.") from exc
    try:
        return image, _within_limits(frames_of(image, data, stop_after=MAX_FRAMES + 1), max_pixels)
    except PayloadTooLarge:
        image.close()
        raise


def _within_limits(frames: Frames, max_pixels: int) -> int:
    if frames.count > MAX_FRAMES:
        raise PayloadTooLarge(
            f"The image has more than {MAX_FRAMES} frames; at most {MAX_FRAMES} are accepted.",
            details={"maxFrames": MAX_FRAMES},
        )
    if frames.width * frames.height > max_pixels:
        raise _too_large(max_pixels, f"The image is {frames.width}x{frames.height} pixels; ")
    if frames.pixels > max_pixels:
        said = f"The image has {frames.count} frames of {frames.width}x{frames.height} pixels; "
        raise _too_large(max_pixels, said)
    return max(frames.count, 1)


def decode(image: Image.Image, frames: int = 1) -> None:
    """Decodes the first `frames` frames. A first frame that cannot be read is not a readable image (415);
    a later frame that the headers declare and the file does not hold is a truncated animation (400)."""
    for index in range(frames):
        try:
            image.seek(index)
            image.load()
        except (OSError, SyntaxError, ValueError) as exc:  # EOFError is an OSError
            if index == 0:
                raise UnsupportedMediaType("The file is not a readable image.") from exc
            raise ValidationFailed(
                f"The image declares {frames} frames and holds only {index} readable ones."
            ) from exc


def _too_large(
    max_pixels: int, said: str = "The image declares more pixels than accepted; "
) -> PayloadTooLarge:
    return PayloadTooLarge(
        f"{said}at most {max_pixels} pixels are accepted.", details={"maxPixels": max_pixels}
    )
