"""Image decoding is bounded (12.5): a pixel limit per use, checked before decoding, and at most
WARRANTY_IMAGE_DECODES decodes at once per process, off the event loop."""

from __future__ import annotations

import asyncio
import os
import struct
import sys
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from PIL import Image

from app.config import Settings
from app.storage import images
from app.storage.files import check_file
from tests.conftest import TEST_SECRET
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error, wait_for
from tests.support.images import image_bytes
from tests.support.ports import free_port
from tests.users.test_pictures import UPLOAD, upload

ROOT = Path(__file__).resolve().parents[2]


def rgb_png(width: int, height: int) -> bytes:
    """A real, valid RGB PNG of width x height black pixels, written row by row (never held whole)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    compressor = zlib.compressobj(9)
    row = b"\x00" * (1 + 3 * width)  # filter byte, then RGB
    data = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")


BIG = rgb_png(6300, 6300)  # 39.7 million pixels: about 120 MB once decoded


async def test_a_6300_px_png_is_refused_as_a_profile_picture(app: FastAPI, client: httpx.AsyncClient) -> None:
    assert len(BIG) < 200_000
    response = await upload(client, auth_headers(app, await create_user(app)), BIG)
    assert assert_error(response, 413, "PAYLOAD_TOO_LARGE")["details"] == {"maxPixels": 16_000_000}


async def test_receipts_take_up_to_40_million_pixels(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    product = await create_product(app, user)
    over = image_bytes("PNG", size=(6400, 6400), color="white", mode="1")  # 41 million pixels
    refused = await client.post(
        f"/api/products/{product.id}/receipts",
        headers=auth_headers(app, user),
        files={"file": ("r.png", over, "image/png")},
    )
    assert assert_error(refused, 413, "PAYLOAD_TOO_LARGE")["details"] == {"maxPixels": 40_000_000}


@pytest.mark.settings(max_profile_picture_pixels=100)
async def test_the_profile_picture_limit_is_a_setting(app: FastAPI, client: httpx.AsyncClient) -> None:
    response = await upload(client, auth_headers(app, await create_user(app)), image_bytes(size=(11, 10)))
    assert assert_error(response, 413, "PAYLOAD_TOO_LARGE")["details"] == {"maxPixels": 100}


async def test_refusing_the_6300_px_png_costs_the_server_little_memory(
    app: FastAPI, settings: Settings, tmp_path: Path
) -> None:
    """The service in a process of its own (uvicorn, default limits), so its peak resident size (VmHWM) is
    this upload's: refusing the 120 MB-when-decoded picture raises it by far less than that."""
    token = auth_headers(app, await create_user(app))
    port = free_port()
    env = {
        **os.environ,
        "WARRANTY_ENV": "test",
        "WARRANTY_DATABASE_URL": settings.database_url,
        "WARRANTY_SECRET_KEY": TEST_SECRET,
        "WARRANTY_DATA_DIR": str(tmp_path / "server"),
        "WARRANTY_RUN_WORKER": "false",
    }
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(port), "--log-level", "warning",
        cwd=ROOT, env=env,
    )  # fmt: skip
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            await wait_for(lambda: _up(http), within=30)
            warm = await http.post(
                UPLOAD, headers=token, files={"file": ("a.png", image_bytes(size=(64, 64)))}
            )
            assert warm.status_code == 200, warm.text
            before = _peak_kb(server.pid)
            refused = await http.post(UPLOAD, headers=token, files={"file": ("big.png", BIG, "image/png")})
            grown_mb = (_peak_kb(server.pid) - before) // 1024
        assert grown_mb < 10, f"the server's peak memory grew by {grown_mb} MB"
        assert assert_error(refused, 413, "PAYLOAD_TOO_LARGE")["details"] == {"maxPixels": 16_000_000}
    finally:
        server.terminate()
        await server.wait()


async def _up(http: httpx.AsyncClient) -> bool:
    try:
        return (await http.get("/health")).status_code == 200
    except httpx.TransportError:
        return False


def _peak_kb(pid: int) -> int:
    """The process's peak resident size so far (Linux: VmHWM in /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def _counting(
    original: Callable[[Image.Image, int], None],
) -> tuple[Callable[[Image.Image, int], None], list[int]]:
    """Wraps the real decode: counts how many run at once (each held a moment, so overlaps show)."""
    lock, running, peak = threading.Lock(), [0], [0]

    def decode(image: Image.Image, frames: int = 1) -> None:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        try:
            time.sleep(0.05)
            original(image, frames)
        finally:
            with lock:
                running[0] -= 1

    return decode, peak


@pytest.mark.parametrize("slots", [2, 3])
async def test_at_most_the_configured_decodes_run_at_once(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch, slots: int
) -> None:
    """Eight checks at once (uploads of any kind: receipts, attachments, pictures, inbound email), as the
    requests of one process make them: `slots` decode at a time, the others wait their turn."""
    images.DECODES.configure(slots)
    decode, peak = _counting(images.decode)
    monkeypatch.setattr(images, "decode", decode)
    data = image_bytes(size=(300, 300))
    limits = {"allowed": {"png"}, "max_size": 10**7, "max_pixels": 10**6}
    try:
        kinds = await asyncio.gather(*(check_file(data, **limits) for _ in range(8)))  # type: ignore[arg-type]
    finally:
        images.DECODES.configure(app.state.settings.image_decodes)
    assert [kind.extension for kind in kinds] == ["png"] * 8
    assert peak[0] == slots
