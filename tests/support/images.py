"""Real image bytes: still images, animations, and files whose headers lie about what they hold."""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Sequence
from typing import Any

from PIL import Image


def image_bytes(
    fmt: str = "PNG", size: tuple[int, int] = (8, 6), color: str = "red", mode: str = "RGB"
) -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, color).save(buffer, format=fmt)
    return buffer.getvalue()


def animation(fmt: str, colors: Sequence[str], size: tuple[int, int] = (16, 16), **options: Any) -> bytes:
    """An animated GIF, PNG (APNG) or WebP of one frame per color."""
    frames = [Image.new("RGB", size, color) for color in colors]
    buffer = io.BytesIO()
    frames[0].save(buffer, fmt, save_all=True, append_images=frames[1:], duration=100, loop=0, **options)
    return buffer.getvalue()


def gif_of_frames(count: int) -> bytes:
    """A GIF of `count` 1x1 frames, written by hand (Pillow takes seconds to write tens of thousands):
    the screen with a two-color table, the loop extension, then each frame's graphic control and data."""
    screen = b"GIF89a" + struct.pack("<HHBBB", 1, 1, 0x80, 0, 0) + b"\x00\x00\x00\xff\xff\xff"
    loop = b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    control = b"\x21\xf9\x04\x00\x01\x00\x00\x00"  # 10 ms
    pixel = b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, 0) + b"\x02\x02\x44\x01\x00"  # LZW: clear, 0, end
    return screen + loop + (control + pixel) * count + b"\x3b"


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def lying_apng(frames: int, declared: int) -> bytes:
    """An APNG of `frames` frames whose acTL chunk declares `declared`."""
    data = animation("PNG", ["red", "green", "blue", "white"][:frames])
    start = data.index(b"acTL") - 4
    return data[:start] + _png_chunk(b"acTL", struct.pack(">II", declared, 0)) + data[start + 20 :]


def png_bomb(width: int = 100_000, height: int = 100_000) -> bytes:
    """A small PNG whose header declares width x height pixels (a decompression bomb's shape)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale
    data = zlib.compress(b"\x00" * 1024)
    chunks = _png_chunk(b"IHDR", header) + _png_chunk(b"IDAT", data) + _png_chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + chunks
