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


def request_queries(statements: list[str]) -> list[str]:
    """`count_queries` output without the real-time hub's polling of the events table, which shares the
    engine on PostgreSQL and runs whenever it likes: not the request's work."""
    return [statement for statement in statements if "FROM events" not in statement]
