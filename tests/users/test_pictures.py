from __future__ import annotations

import asyncio
import io

import httpx
import pytest
from fastapi import FastAPI
from PIL import Image

from app.models import User
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error
from tests.support.images import image_bytes

UPLOAD = "/api/user/profile-picture"


async def upload(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    data: bytes,
    name: str = "me.png",
    mime: str = "image/png",
) -> httpx.Response:
    return await client.post(UPLOAD, headers=headers, files={"file": (name, data, mime)})


def stored(app: FastAPI, picture_path: str) -> bool:
    filename = picture_path.rsplit("/", 1)[-1]
    return app.state.storage.path(f"avatars/{filename}").exists()


@pytest.mark.parametrize(
    ("fmt", "name", "mime"),
    [
        ("PNG", "me.png", "image/png"),
        ("JPEG", "me.JPEG", "image/jpeg"),
        ("GIF", "me.gif", "image/gif"),
        ("WEBP", "me.webp", "image/webp"),
    ],
)
async def test_upload_and_fetch_a_picture(
    app: FastAPI, client: httpx.AsyncClient, fmt: str, name: str, mime: str
) -> None:
    user = await create_user(app)
    other = await create_user(app)
    data = image_bytes(fmt)

    response = await upload(client, auth_headers(app, user), data, name, mime)

    assert response.status_code == 200
    path = response.json()["profilePicture"]
    assert response.json() == {"profilePicture": path}
    assert path.startswith("/api/user/profile-picture/") and name.lower() not in path
    assert (await client.get("/api/me", headers=auth_headers(app, user))).json()["profilePicture"] == path
    fetched = await client.get(path, headers=auth_headers(app, other))  # any signed-in user
    assert fetched.status_code == 200
    with Image.open(io.BytesIO(fetched.content)) as served:  # a clean copy (test_picture_copy.py)
        assert served.format == fmt and served.size == (8, 6)
    assert fetched.headers["content-type"] == mime
    assert fetched.headers["x-content-type-options"] == "nosniff"


async def test_the_bytes_decide_when_the_client_does_not_know_the_type(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    headers = auth_headers(app, await create_user(app))

    response = await upload(client, headers, image_bytes("GIF"), name="blob", mime="application/octet-stream")

    assert response.status_code == 200 and response.json()["profilePicture"].endswith(".gif")


async def test_a_new_picture_replaces_and_removes_the_old_one(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app)
    headers = auth_headers(app, user)
    first = (await upload(client, headers, image_bytes("PNG", color="red"))).json()["profilePicture"]
    assert stored(app, first)

    second = (await upload(client, headers, image_bytes("JPEG"), "new.jpg", "image/jpeg")).json()[
        "profilePicture"
    ]

    assert second != first and stored(app, second) and not stored(app, first)
    assert_error(await client.get(first, headers=headers), 404, "NOT_FOUND")
    assert (await client.get("/api/me", headers=headers)).json()["profilePicture"] == second


async def test_a_refused_upload_keeps_the_old_picture(app: FastAPI, client: httpx.AsyncClient) -> None:
    headers = auth_headers(app, await create_user(app))
    first = (await upload(client, headers, image_bytes("PNG"))).json()["profilePicture"]

    assert_error(
        await upload(client, headers, b"hello", "a.txt", "text/plain"), 415, "UNSUPPORTED_MEDIA_TYPE"
    )

    assert stored(app, first)
    assert (await client.get("/api/me", headers=headers)).json()["profilePicture"] == first


@pytest.mark.parametrize(
    ("data", "name", "mime"),
    [
        (image_bytes("PNG"), "photo.jpg", "image/jpeg"),  # a PNG named .jpg
        (image_bytes("PNG"), "photo.png", "image/jpeg"),  # a PNG sent as image/jpeg
        (b"just some text\n", "notes.txt", "text/plain"),
        (b"just some text\n", "notes.png", "image/png"),
        (b"%PDF-1.4\n%...\n", "scan.pdf", "application/pdf"),  # allowed elsewhere, not as a picture
        (image_bytes("PNG")[:40], "cut.png", "image/png"),  # a truncated image
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "fake.png", "image/png"),  # the magic number and nothing else
    ],
)
async def test_what_is_not_an_allowed_image_is_415(
    app: FastAPI, client: httpx.AsyncClient, data: bytes, name: str, mime: str
) -> None:
    user = await create_user(app)

    assert_error(
        await upload(client, auth_headers(app, user), data, name, mime), 415, "UNSUPPORTED_MEDIA_TYPE"
    )

    assert (await client.get("/api/me", headers=auth_headers(app, user))).json()["profilePicture"] is None


async def test_a_picture_over_5_mb_is_413(app: FastAPI, client: httpx.AsyncClient) -> None:
    data = image_bytes("PNG") + b"\x00" * (5 * 1024 * 1024)

    response = await upload(client, auth_headers(app, await create_user(app)), data)

    assert assert_error(response, 413, "PAYLOAD_TOO_LARGE")["details"] == {"maxBytes": 5 * 1024 * 1024}


async def test_an_image_bomb_is_refused_before_decoding(app: FastAPI, client: httpx.AsyncClient) -> None:
    # 8000 x 8000 one-bit pixels compress to a few kilobytes but are 64 million pixels (limit 16 million).
    bomb = image_bytes("PNG", size=(8000, 8000), color="white", mode="1")
    assert len(bomb) < 100_000

    response = await upload(client, auth_headers(app, await create_user(app)), bomb)

    assert assert_error(response, 413, "PAYLOAD_TOO_LARGE")["details"] == {"maxPixels": 16_000_000}


@pytest.mark.settings(max_profile_picture_size=1000)
async def test_the_size_limit_is_a_setting(app: FastAPI, client: httpx.AsyncClient) -> None:
    data = image_bytes("PNG", size=(300, 300), color="white") + b"\x00" * 1000

    assert_error(
        await upload(client, auth_headers(app, await create_user(app)), data), 413, "PAYLOAD_TOO_LARGE"
    )


async def test_upload_needs_the_file_field(app: FastAPI, client: httpx.AsyncClient) -> None:
    headers = auth_headers(app, await create_user(app))

    missing = await client.post(
        UPLOAD, headers=headers, files={"picture": ("a.png", image_bytes(), "image/png")}
    )
    as_json = await client.post(UPLOAD, headers=headers, json={"file": "abc"})

    assert assert_error(missing, 400, "VALIDATION_FAILED")["details"]["fields"] == {"file": "Field required"}
    assert_error(as_json, 400, "VALIDATION_FAILED")


@pytest.mark.parametrize(
    "filename",
    [
        "..%2F..%2Fsecret.png",
        "%2E%2E%2Favatars%2Fx.png",
        "..",
        f"{'a' * 32}.svg",
        f"{'A' * 32}.png",
        f"{'a' * 31}.png",
        f"{'a' * 32}.png",  # well formed, but no such file
    ],
)
async def test_fetching_anything_else_is_404(app: FastAPI, client: httpx.AsyncClient, filename: str) -> None:
    user: User = await create_user(app)
    secret = app.state.storage.root.parent / "secret.png"
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_bytes(image_bytes())

    response = await client.get(f"/api/user/profile-picture/{filename}", headers=auth_headers(app, user))

    assert_error(response, 404, "NOT_FOUND")


async def test_a_nul_in_the_name_is_a_400(app: FastAPI, client: httpx.AsyncClient) -> None:
    """Refused before routing, like any path with a NUL (app.api.middleware): nothing is looked up."""
    user: User = await create_user(app)
    path = f"/api/user/profile-picture/{'a' * 32}.png%00.txt"
    assert_error(await client.get(path, headers=auth_headers(app, user)), 400, "VALIDATION_FAILED")


async def test_two_uploads_at_once_leave_exactly_the_current_picture(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app)
    headers = auth_headers(app, user)
    first = (await upload(client, headers, image_bytes("PNG"))).json()["profilePicture"]

    responses = await asyncio.gather(
        *(upload(client, headers, image_bytes("PNG", color=c)) for c in ("blue", "green"))
    )

    assert [response.status_code for response in responses] == [200, 200]
    current = (await client.get("/api/me", headers=headers)).json()["profilePicture"]
    assert current in [response.json()["profilePicture"] for response in responses]
    assert sorted(
        path.name for path in app.state.storage.path(f"avatars/{'a' * 32}.png").parent.iterdir()
    ) == [current.rsplit("/", 1)[-1]]
    assert not stored(app, first)
