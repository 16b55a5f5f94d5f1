"""Profile pictures are re-encoded before they are stored (app.users.picture_copy, 12.8): what is served
carries no EXIF, GPS, XMP, ICC or text chunk, in the uploaded format, upright; a copy keeps how to draw
the image (its transparency) and is made within the pixel limit."""

from __future__ import annotations

import io

import httpx
import pytest
from fastapi import FastAPI
from PIL import Image, PngImagePlugin

from app.errors import PayloadTooLarge
from app.users.picture_copy import clean_copy
from tests.factories.users import auth_headers, create_user
from tests.support.images import animation
from tests.users.test_pictures import upload

GPS_IFD = 0x8825
ORIENTATION = 0x0112


def _jpeg_with_gps() -> bytes:
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"  # Make
    exif[ORIENTATION] = 6  # the camera was turned: show it rotated 90 degrees clockwise
    exif[GPS_IFD] = {1: "N", 2: (48.0, 51.0, 29.0), 3: "E", 4: (2.0, 17.0, 40.0)}
    buffer = io.BytesIO()
    Image.new("RGB", (40, 20), "blue").save(
        buffer, "JPEG", exif=exif, icc_profile=b"\0" * 128, comment=b"taken at home"
    )
    return buffer.getvalue()


def _png_with_text() -> bytes:
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "Home: 12 Rue de Rivoli")
    info.add_itxt("Location", "48.8577 N, 2.2945 E", zip=True)
    info.add_text("Author", "Ann", zip=True)
    buffer = io.BytesIO()
    Image.new("RGBA", (30, 10), (255, 0, 0, 128)).save(buffer, "PNG", pnginfo=info)
    return buffer.getvalue()


async def _served(
    app: FastAPI, client: httpx.AsyncClient, data: bytes, name: str, mime: str
) -> httpx.Response:
    user = await create_user(app)
    response = await upload(client, auth_headers(app, user), data, name, mime)
    assert response.status_code == 200, response.text
    served = await client.get(response.json()["profilePicture"], headers=auth_headers(app, user))
    assert served.status_code == 200
    return served


async def test_a_jpeg_is_served_without_exif_gps_or_comments(app: FastAPI, client: httpx.AsyncClient) -> None:
    original = _jpeg_with_gps()
    assert b"Exif\0\0" in original and b"PhoneMaker" in original

    served = await _served(app, client, original, "me.jpg", "image/jpeg")

    assert served.headers["content-type"] == "image/jpeg"
    for trace in (b"Exif\0\0", b"PhoneMaker", b"taken at home", b"ICC_PROFILE", b"http://ns.adobe.com/xap"):
        assert trace not in served.content
    with Image.open(io.BytesIO(served.content)) as image:
        assert image.format == "JPEG"
        assert not image.getexif() and "exif" not in image.info and "icc_profile" not in image.info
        assert image.size == (20, 40)  # turned upright by the orientation it no longer carries


async def test_a_png_is_served_without_text_chunks(app: FastAPI, client: httpx.AsyncClient) -> None:
    original = _png_with_text()
    served = await _served(app, client, original, "me.png", "image/png")

    assert served.headers["content-type"] == "image/png"
    for chunk in (b"tEXt", b"zTXt", b"iTXt", b"eXIf", b"Rivoli"):
        assert chunk not in served.content
    with Image.open(io.BytesIO(served.content)) as image, Image.open(io.BytesIO(original)) as before:
        assert image.format == "PNG" and image.size == (30, 10)
        assert image.info == {}
        assert image.convert("RGBA").tobytes() == before.convert("RGBA").tobytes()  # lossless, alpha kept


@pytest.mark.parametrize(
    ("fmt", "name", "mime"),
    [("GIF", "me.gif", "image/gif"), ("PNG", "me.png", "image/png"), ("WEBP", "me.webp", "image/webp")],
)
async def test_an_animation_is_stored_as_its_first_frame(
    app: FastAPI, client: httpx.AsyncClient, fmt: str, name: str, mime: str
) -> None:
    """A GIF stays a GIF (an APNG a PNG, a WebP a WebP), of one frame: the first, without its comment."""
    original = animation(fmt, ["red", "green", "blue"], **({"comment": b"secret"} if fmt == "GIF" else {}))
    served = await _served(app, client, original, name, mime)

    assert b"secret" not in served.content and b"acTL" not in served.content and b"ANMF" not in served.content
    with Image.open(io.BytesIO(served.content)) as image:
        assert image.format == fmt and getattr(image, "n_frames", 1) == 1 and image.size == (16, 16)
        red, green, blue = image.convert("RGB").getpixel((8, 8))  # type: ignore[misc]
        assert red > 240 and green < 16 and blue < 16  # red, as WebP at quality 90 keeps it


async def test_a_copy_keeps_the_transparency_and_drops_the_comment() -> None:
    image = Image.new("P", (8, 8), 1)
    image.putpalette([0, 0, 0, 255, 0, 0] + [0] * 762)
    buffer = io.BytesIO()
    image.save(buffer, "GIF", transparency=1, comment=b"where I live")

    copy = await clean_copy(buffer.getvalue(), "gif", max_pixels=10_000)

    assert b"where I live" not in copy
    with Image.open(io.BytesIO(copy)) as cleaned:
        assert cleaned.format == "GIF" and "comment" not in cleaned.info
        assert cleaned.convert("RGBA").getpixel((4, 4)) == (255, 0, 0, 0)  # still see-through


async def test_a_copy_is_made_within_the_pixel_limit() -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (100, 100), "blue").save(buffer, "PNG")
    assert len(await clean_copy(buffer.getvalue(), "png", max_pixels=10_000)) > 0
    with pytest.raises(PayloadTooLarge):
        await clean_copy(buffer.getvalue(), "png", max_pixels=9_999)
