"""Receipts of a product (app.products.routes.receipts, docs/api.md §5.7): upload (the bytes decide the
type, within the size and pixel limits), list, download and delete, the file going with its row."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.models import Receipt
from app.storage.files import display_file_name
from tests.factories.products import create_product, create_receipt
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error, files_of_a_rollback_and_a_commit
from tests.products.support import receipt_count
from tests.support.images import image_bytes, png_bomb
from tests.support.pdf import PDF_BYTES

RECEIPT_FIELDS = {"id", "fileName", "fileType", "mimeType", "size", "createdAt", "url"}


async def upload(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    product_id: int,
    data: bytes,
    name: str = "invoice.pdf",
    mime: str = "application/pdf",
) -> httpx.Response:
    return await client.post(
        f"/api/products/{product_id}/receipts", headers=headers, files={"file": (name, data, mime)}
    )


@pytest.mark.parametrize(
    ("data", "name", "mime", "file_type"),
    [
        (PDF_BYTES, "invoice.pdf", "application/pdf", "pdf"),
        (image_bytes("JPEG"), "scan.JPEG", "image/jpeg", "jpg"),
        (image_bytes("PNG"), "scan.png", "image/png", "png"),
        (image_bytes("WEBP"), "scan.webp", "image/webp", "webp"),
        (
            image_bytes("PNG"),
            "scan.png",
            "application/octet-stream",
            "png",
        ),  # generic part type: bytes decide
    ],
)
async def test_upload_list_and_download(
    app: FastAPI, client: httpx.AsyncClient, data: bytes, name: str, mime: str, file_type: str
) -> None:
    user = await create_user(app)
    product = await create_product(app, user)
    headers = auth_headers(app, user)

    response = await upload(client, headers, product.id, data, name, mime)

    assert response.status_code == 201, response.text
    body = response.json()
    assert set(body) == RECEIPT_FIELDS
    url = f"/api/products/{product.id}/receipts/{body['id']}/file"
    expected_mime = {"pdf": "application/pdf", "jpg": "image/jpeg"}.get(file_type, f"image/{file_type}")
    assert (body["fileName"], body["fileType"], body["mimeType"], body["size"], body["url"]) == (
        name,
        file_type,
        expected_mime,
        len(data),
        url,
    )
    assert response.headers["Location"] == url
    listed = await client.get(f"/api/products/{product.id}/receipts", headers=headers)
    assert listed.json() == [body]
    detail = await client.get(f"/api/products/{product.id}", headers=headers)
    assert detail.json()["receipts"] == [body]
    download = await client.get(url, headers=headers)
    assert download.status_code == 200
    assert download.content == data
    assert download.headers["Content-Type"] == expected_mime
    assert download.headers["Content-Disposition"].startswith(f'attachment; filename="{name}"')
    assert download.headers["X-Content-Type-Options"] == "nosniff"


async def test_the_stored_name_is_generated_and_the_shown_name_cleaned(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app)
    product = await create_product(app, user)
    headers = auth_headers(app, user)

    response = await upload(client, headers, product.id, PDF_BYTES, name="..\\..\\etc/bon d'achat é.pdf")

    assert response.status_code == 201, response.text
    assert response.json()["fileName"] == "bon d'achat é.pdf"
    async with app.state.sessionmaker() as session:
        receipt = await session.get(Receipt, response.json()["id"])
    assert receipt is not None
    assert receipt.storage_key.startswith("receipts/") and "bon" not in receipt.storage_key
    assert app.state.storage.path(receipt.storage_key).read_bytes() == PDF_BYTES
    download = await client.get(response.json()["url"], headers=headers)
    assert download.headers["Content-Disposition"] == (
        "attachment; filename=\"bon d'achat _.pdf\"; filename*=UTF-8''bon%20d%27achat%20%C3%A9.pdf"
    )


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\tb\r\nc\x00.pdf", "a b c .pdf"),
        ("  spaced   out .pdf ", "spaced out .pdf"),
        ("C:\\Users\\me\\scan.png", "scan.png"),
        ("../", "receipt.pdf"),
        ("", "receipt.pdf"),
        (None, "receipt.pdf"),
        ("x" * 300 + ".pdf", "x" * 251 + ".pdf"),
        ('say "hi".pdf', "say hi .pdf"),
        ("line\u2028break\u00a0.pdf", "line break .pdf"),
        (".hidden.pdf", "hidden.pdf"),
    ],
)
def test_display_name(raw: str | None, shown: str) -> None:
    assert display_file_name(raw, "receipt.pdf") == shown


@pytest.mark.parametrize(
    ("data", "name", "mime"),
    [
        (PDF_BYTES, "photo.png", "image/png"),  # name and type say png, bytes are a pdf
        (image_bytes("PNG"), "scan.pdf", "application/pdf"),
        (image_bytes("PNG"), "scan.png", "image/jpeg"),  # name agrees, part type does not
        (image_bytes("GIF"), "anim.gif", "image/gif"),  # a real image of a kind receipts do not take
        (b"just some text", "notes.txt", "text/plain"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, "broken.png", "image/png"),  # a png header, no image
    ],
)
async def test_wrong_or_unsupported_files_are_415(
    app: FastAPI, client: httpx.AsyncClient, data: bytes, name: str, mime: str
) -> None:
    user = await create_user(app)
    product = await create_product(app, user)

    response = await upload(client, auth_headers(app, user), product.id, data, name, mime)

    assert_error(response, 415, "UNSUPPORTED_MEDIA_TYPE")
    assert await receipt_count(app) == 0


@pytest.mark.settings(max_receipt_size=1000)
async def test_a_file_over_the_size_limit_is_413(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    product = await create_product(app, user)
    headers = auth_headers(app, user)

    response = await upload(client, headers, product.id, PDF_BYTES + b"%" * 1000)
    exactly = await upload(client, headers, product.id, PDF_BYTES + b"%" * (1000 - len(PDF_BYTES)))

    assert_error(response, 413, "PAYLOAD_TOO_LARGE")
    assert exactly.status_code == 201
    assert await receipt_count(app) == 1


async def test_an_image_bomb_is_refused(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    product = await create_product(app, user)
    bomb = png_bomb(100_000, 100_000)
    assert len(bomb) < 2000

    response = await upload(client, auth_headers(app, user), product.id, bomb, "bomb.png", "image/png")

    assert assert_error(response, 413, "PAYLOAD_TOO_LARGE")["details"] == {"maxPixels": 40_000_000}
    assert await receipt_count(app) == 0


@pytest.mark.settings(max_image_pixels=100)
async def test_the_pixel_limit_is_a_setting(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    product = await create_product(app, user)
    headers = auth_headers(app, user)

    too_big = await upload(client, headers, product.id, image_bytes("PNG", (11, 10)), "a.png", "image/png")
    fits = await upload(client, headers, product.id, image_bytes("PNG", (10, 10)), "b.png", "image/png")

    assert_error(too_big, 413, "PAYLOAD_TOO_LARGE")
    assert fits.status_code == 201


async def test_a_missing_file_field_is_400(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    product = await create_product(app, user)

    response = await client.post(
        f"/api/products/{product.id}/receipts",
        headers=auth_headers(app, user),
        files={"other": ("a.pdf", PDF_BYTES, "application/pdf")},
    )

    assert "file" in assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]


async def test_delete_removes_the_row_and_the_file(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    product = await create_product(app, user)
    receipt = await create_receipt(app, product)
    other = await create_receipt(app, product)
    headers = auth_headers(app, user)
    path = f"/api/products/{product.id}/receipts/{receipt.id}"

    response = await client.delete(path, headers=headers)

    assert response.status_code == 204
    assert not app.state.storage.path(receipt.storage_key).exists()
    assert app.state.storage.path(other.storage_key).exists()
    assert_error(await client.get(f"{path}/file", headers=headers), 404, "NOT_FOUND")
    assert_error(await client.delete(path, headers=headers), 404, "NOT_FOUND")
    listed = await client.get(f"/api/products/{product.id}/receipts", headers=headers)
    assert [item["id"] for item in listed.json()] == [other.id]


async def test_a_stored_file_goes_again_when_its_transaction_rolls_back(app: FastAPI) -> None:
    dropped, kept = await files_of_a_rollback_and_a_commit(app)

    assert not app.state.storage.path(dropped).exists()
    assert app.state.storage.path(kept).exists()
