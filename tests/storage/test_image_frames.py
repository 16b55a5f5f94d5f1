"""Animated images (GIF, APNG, WebP): every frame counts against the decode budget (frames x width x
height), at most 100 frames are read, counted from the headers before any is decoded; a file whose
frames are not there is an unreadable image, never a 500 (docs/api.md, "Images")."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from PIL import GifImagePlugin

from app.models import User
from tests.factories.claims import attachment, claim_cast
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error
from tests.support.images import animation, gif_of_frames, lying_apng
from tests.users.test_pictures import upload

MIME = {"gif": "image/gif", "png": "image/png", "webp": "image/webp"}


async def _receipt(app: FastAPI, client: httpx.AsyncClient, data: bytes, name: str) -> httpx.Response:
    user = await create_user(app)
    product = await create_product(app, user)
    return await client.post(
        f"/api/products/{product.id}/receipts",
        headers=auth_headers(app, user),
        files={"file": (name, data, "application/octet-stream")},
    )


async def _attachment(app: FastAPI, client: httpx.AsyncClient, data: bytes, name: str) -> httpx.Response:
    cast = await claim_cast(app)
    return await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={"attachment": attachment(data, name, MIME[name.rsplit(".", 1)[-1]])},
        headers=auth_headers(app, cast.customer),
    )


async def _picture(app: FastAPI, client: httpx.AsyncClient, data: bytes, name: str) -> httpx.Response:
    return await upload(
        client, auth_headers(app, await create_user(app)), data, name, "application/octet-stream"
    )


async def test_a_gif_of_64000_frames_is_refused_from_its_headers(
    app: FastAPI, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1.5 MB of 1x1 frames was stored after 6.1 s and 200 MB, holding a decode slot: the frames are
    counted from the file's blocks, up to the 101st, and none is decoded or walked by the decoder."""
    walked: list[int] = []
    seek = GifImagePlugin.GifImageFile._seek

    def counted(image: GifImagePlugin.GifImageFile, frame: int, update_image: bool = True) -> None:
        walked.append(frame)
        seek(image, frame, update_image)

    monkeypatch.setattr(GifImagePlugin.GifImageFile, "_seek", counted)
    data = gif_of_frames(64_000)
    assert len(data) > 1_400_000
    user = await create_user(app)

    response = await upload(client, auth_headers(app, user), data, "me.gif", "image/gif")

    assert assert_error(response, 413, "PAYLOAD_TOO_LARGE")["details"] == {"maxFrames": 100}
    assert walked == [0]  # the decoder opened the first frame, and read no other
    async with app.state.sessionmaker() as session:
        assert (await session.get(User, user.id)).profile_picture is None  # type: ignore[union-attr]


@pytest.mark.parametrize("send", [_picture, _attachment])
async def test_at_most_100_frames_are_read(app: FastAPI, client: httpx.AsyncClient, send: Any) -> None:
    accepted = await send(app, client, gif_of_frames(100), "a.gif")
    assert accepted.status_code in (200, 201), accepted.text
    refused = await send(app, client, gif_of_frames(101), "a.gif")
    assert assert_error(refused, 413, "PAYLOAD_TOO_LARGE")["details"] == {"maxFrames": 100}


@pytest.mark.settings(max_image_pixels=1000, max_profile_picture_pixels=1000)
@pytest.mark.parametrize(
    ("send", "fmt", "name"),
    [
        (_picture, "GIF", "a.gif"),
        (_receipt, "PNG", "a.png"),
        (_receipt, "WEBP", "a.webp"),
        (_attachment, "GIF", "a.gif"),
    ],
)
async def test_every_frame_counts_against_the_pixel_budget(
    app: FastAPI, client: httpx.AsyncClient, send: Any, fmt: str, name: str
) -> None:
    """3 frames of 16x16 are 768 pixels, 4 are 1,024: over a budget of 1,000 though each frame is 256."""
    within = await send(app, client, animation(fmt, ["red", "green", "blue"]), name)
    assert within.status_code in (200, 201), within.text
    over = await send(app, client, animation(fmt, ["red", "green", "blue", "white"]), name)
    assert assert_error(over, 413, "PAYLOAD_TOO_LARGE")["details"] == {"maxPixels": 1000}


@pytest.mark.parametrize("send", [_picture, _receipt, _attachment])
async def test_an_apng_declaring_frames_it_does_not_have_is_a_400_not_a_500(
    app: FastAPI, client: httpx.AsyncClient, send: Any
) -> None:
    """Its acTL chunk says 5 frames, the file holds 2: the third was a Truncated File Read (500)."""
    response = await send(app, client, lying_apng(frames=2, declared=5), "a.png")
    assert_error(response, 400, "VALIDATION_FAILED")


async def test_an_apng_declaring_more_than_100_frames_is_refused_unread(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    response = await _receipt(app, client, lying_apng(frames=2, declared=64_000), "a.png")
    assert assert_error(response, 413, "PAYLOAD_TOO_LARGE")["details"] == {"maxFrames": 100}
