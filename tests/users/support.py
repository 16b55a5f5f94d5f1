"""Helpers of the users tests: real image bytes, and the SQL a request ran."""

from __future__ import annotations

import io

from PIL import Image


def image_bytes(
    fmt: str = "PNG", size: tuple[int, int] = (8, 6), color: str = "red", mode: str = "RGB"
) -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, color).save(buffer, format=fmt)
    return buffer.getvalue()
