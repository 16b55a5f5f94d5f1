"""Files in an S3 bucket (contract 14.3), against moto's S3 server on 127.0.0.1: receipts, message and
inbound-email attachments and profile pictures go to the bucket and come back through the API; deletes
and rollbacks remove them as on disk; a missing object is a 404 and an unreachable bucket a 503."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from pydantic import ValidationError

from app.config import Settings
from app.main import create_app
from app.storage.storage import LocalStorage
from app.storage.storage_backend import create_storage
from tests.conftest import SettingsFactory
from tests.factories.claims import attachment, claim_cast
from tests.factories.inbound import RAW_INBOUND_SECRET, attachment_item, claim_address, generic, post_standard
from tests.factories.products import create_product, create_receipt
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error, files_of_a_rollback_and_a_commit
from tests.support.images import image_bytes
from tests.support.object_store import Bucket
from tests.support.pdf import PDF_BYTES
from tests.support.ports import free_port
from tests.test_cli import run_cli


@pytest.fixture
def settings(make_settings: SettingsFactory, bucket: Bucket, request: pytest.FixtureRequest) -> Settings:
    """The test app keeps its files in the test's bucket."""
    marker = request.node.get_closest_marker("settings")
    return make_settings(**bucket.settings(), **(marker.kwargs if marker else {}))


async def settled(app: FastAPI) -> None:
    """Removals run after the commit, in the background: wait for them before looking."""
    await app.state.storage.drain()


def nothing_on_disk(settings: Settings) -> bool:
    return not (settings.data_dir / "files").exists()


async def upload_receipt(
    client: httpx.AsyncClient, headers: dict[str, str], product_id: int
) -> httpx.Response:
    files = {"file": ("invoice.pdf", PDF_BYTES, "application/pdf")}
    return await client.post(f"/api/products/{product_id}/receipts", headers=headers, files=files)


async def test_a_receipt_is_kept_in_the_bucket_served_from_it_and_removed_with_it(
    app: FastAPI, client: httpx.AsyncClient, bucket: Bucket, settings: Settings
) -> None:
    user = await create_user(app)
    product = await create_product(app, user)
    headers = auth_headers(app, user)

    created = await upload_receipt(client, headers, product.id)

    assert created.status_code == 201, created.text
    [key] = bucket.objects()
    assert key.startswith("files/receipts/") and key.endswith(".pdf")
    assert bucket.get(key.removeprefix("files/")) == PDF_BYTES
    assert nothing_on_disk(settings)
    download = await client.get(created.json()["url"], headers=headers)
    assert download.status_code == 200
    assert download.content == PDF_BYTES
    assert download.headers["content-type"] == "application/pdf"
    assert download.headers["content-length"] == str(len(PDF_BYTES))
    assert download.headers["content-disposition"].startswith("attachment;")

    deleted = await client.delete(
        f"/api/products/{product.id}/receipts/{created.json()['id']}", headers=headers
    )
    assert deleted.status_code == 204
    await settled(app)
    assert bucket.objects() == []
    assert_error(await client.get(created.json()["url"], headers=headers), 404, "NOT_FOUND")


async def test_a_large_receipt_streams_back_whole(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    product = await create_product(app, user)
    data = PDF_BYTES + bytes(range(256)) * 36_000  # 9 MB: several chunks, a multipart upload
    receipt = await create_receipt(app, product, data=data)

    url = f"/api/products/{product.id}/receipts/{receipt.id}/file"
    async with client.stream("GET", url, headers=auth_headers(app, user)) as response:
        assert response.status_code == 200
        assert response.headers["content-length"] == str(len(data))
        received = [chunk async for chunk in response.aiter_raw()]

    assert b"".join(received) == data


@pytest.mark.settings(inbound_secret=RAW_INBOUND_SECRET)
async def test_message_and_inbound_email_attachments_are_kept_in_the_bucket(
    app: FastAPI, client: httpx.AsyncClient, bucket: Bucket, settings: Settings
) -> None:
    cast = await claim_cast(app, email="ann@example.com")
    image = image_bytes()
    sent = await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={"message": "the crack", "attachment": attachment(image, "crack.png", "image/png")},
        headers=auth_headers(app, cast.customer),
    )
    assert sent.status_code == 201, sent.text
    emailed = generic(
        "ann@example.com",
        claim_address(cast.claim.id),
        attachments=[attachment_item("bill.pdf", PDF_BYTES, "application/pdf", "generic")],
    )
    assert (await post_standard(client, emailed)).status_code == 200

    keys = bucket.objects()
    assert sorted(key.rsplit(".", 1)[1] for key in keys) == ["pdf", "png"]
    assert all(key.startswith("files/attachments/") for key in keys)
    assert nothing_on_disk(settings)
    messages = (
        await client.get(f"/api/claims/{cast.claim.id}/messages", headers=auth_headers(app, cast.supplier))
    ).json()
    downloads = {}
    for message in messages:
        response = await client.get(message["attachment"]["url"], headers=auth_headers(app, cast.supplier))
        assert response.status_code == 200
        downloads[message["attachment"]["filename"]] = (response.headers["content-type"], response.content)
    assert downloads == {"crack.png": ("image/png", image), "bill.pdf": ("application/pdf", PDF_BYTES)}


async def test_a_profile_picture_is_kept_in_the_bucket_and_the_replaced_one_removed(
    app: FastAPI, client: httpx.AsyncClient, bucket: Bucket
) -> None:
    user = await create_user(app)
    headers = auth_headers(app, user)

    first = await client.post(
        "/api/user/profile-picture", headers=headers, files={"file": ("me.png", image_bytes(), "image/png")}
    )
    assert first.status_code == 200, first.text
    picture = await client.get(first.json()["profilePicture"], headers=headers)
    assert (picture.status_code, picture.content) == (200, image_bytes())
    second = await client.post(
        "/api/user/profile-picture",
        headers=headers,
        files={"file": ("me.png", image_bytes(size=(8, 8)), "image/png")},
    )
    assert second.status_code == 200

    await settled(app)
    [key] = bucket.objects()
    assert key == f"files/avatars/{second.json()['profilePicture'].rsplit('/', 1)[1]}"
    assert_error(await client.get(first.json()["profilePicture"], headers=headers), 404, "NOT_FOUND")


async def test_deleting_a_product_or_an_account_removes_their_files_from_the_bucket(
    app: FastAPI, client: httpx.AsyncClient, bucket: Bucket
) -> None:
    keeper, leaver = await create_user(app), await create_user(app)
    kept = await create_receipt(app, await create_product(app, keeper))
    dropped_product = await create_product(app, keeper)
    await create_receipt(app, dropped_product)
    await create_receipt(app, await create_product(app, leaver))
    pictured = await client.post(
        "/api/user/profile-picture",
        headers=auth_headers(app, leaver),
        files={"file": ("me.png", image_bytes(), "image/png")},
    )
    assert pictured.status_code == 200
    assert len(bucket.objects()) == 4

    assert (
        await client.delete(f"/api/products/{dropped_product.id}", headers=auth_headers(app, keeper))
    ).status_code == 204
    assert (await client.delete("/api/me", headers=auth_headers(app, leaver))).status_code == 204

    await settled(app)
    assert bucket.objects() == [f"files/{kept.storage_key}"]


async def test_a_stored_file_goes_again_when_its_transaction_rolls_back(app: FastAPI, bucket: Bucket) -> None:
    dropped, kept = await files_of_a_rollback_and_a_commit(app)

    assert bucket.objects() == [f"files/{kept}"]
    assert not await app.state.storage.exists(dropped)
    assert await app.state.storage.exists(kept)
    assert await app.state.storage.read(kept) == b"%PDF-1.4 kept"  # as the worker reads one to email it


async def test_an_object_missing_from_the_bucket_is_a_404(
    app: FastAPI, client: httpx.AsyncClient, bucket: Bucket
) -> None:
    user = await create_user(app)
    product = await create_product(app, user)
    receipt = await create_receipt(app, product)
    bucket.remove(receipt.storage_key)

    response = await client.get(
        f"/api/products/{product.id}/receipts/{receipt.id}/file", headers=auth_headers(app, user)
    )

    assert_error(response, 404, "NOT_FOUND")


async def test_an_unreachable_bucket_is_a_503_with_retry_after_and_no_trace(
    app: FastAPI, make_settings: SettingsFactory, bucket: Bucket, caplog: pytest.LogCaptureFixture
) -> None:
    user = await create_user(app)
    product = await create_product(app, user)
    receipt = await create_receipt(app, product)
    headers = auth_headers(app, user)
    closed = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    unreachable = create_app(make_settings(**{**bucket.settings(), "s3_endpoint_url": closed}))

    caplog.set_level(logging.WARNING)
    async with unreachable.router.lifespan_context(unreachable), client_of(unreachable) as client:
        started = time.monotonic()
        uploaded = await upload_receipt(client, headers, product.id)
        downloaded = await client.get(
            f"/api/products/{product.id}/receipts/{receipt.id}/file", headers=headers
        )
        pictured = await client.post(
            "/api/user/profile-picture",
            headers=headers,
            files={"file": ("me.png", image_bytes(), "image/png")},
        )
        elapsed = time.monotonic() - started
        listed = await client.get(f"/api/products/{product.id}/receipts", headers=headers)
        # Deleting still works: the row goes, the object stays behind (logged) until removed by hand.
        deleted = await client.delete(f"/api/products/{product.id}/receipts/{receipt.id}", headers=headers)
        await settled(unreachable)

    for response in (uploaded, downloaded, pictured):
        assert_error(response, 503, "SERVICE_UNAVAILABLE")
        assert int(response.headers["retry-after"]) >= 1
    assert elapsed < 15
    assert [item["id"] for item in listed.json()] == [receipt.id]  # the failed upload left no row
    assert deleted.status_code == 204
    assert bucket.objects() == [f"files/{receipt.storage_key}"]
    logged = [record.getMessage() for record in caplog.records]
    assert all(record.exc_info is None for record in caplog.records)
    assert any("could not store" in line for line in logged)
    assert any("left in the bucket" in line and receipt.storage_key in line for line in logged)


def client_of(app: FastAPI) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    return httpx.AsyncClient(transport=transport, base_url="http://testserver")


async def test_files_of_the_data_folder_are_copied_into_the_bucket_by_one_command(
    app: FastAPI, client: httpx.AsyncClient, bucket: Bucket, database_url: str, tmp_path: Path
) -> None:
    user = await create_user(app)
    product = await create_product(app, user)
    folder = tmp_path / "before" / "files"
    app.state.storage = LocalStorage(folder)  # the receipt is stored as it was before the move
    try:
        receipt = await create_receipt(app, product)
    finally:
        app.state.storage = create_storage(app.state.settings)
    (folder / "receipts" / f"{'0' * 32}.pdf.part").write_bytes(b"half")  # an upload cut short
    url = f"/api/products/{product.id}/receipts/{receipt.id}/file"
    assert (await client.get(url, headers=auth_headers(app, user))).status_code == 404

    command = ("copy-files-to-bucket", "--from", str(folder))
    copied = await run_cli(database_url, *command, env=bucket.environment())
    again = await run_cli(database_url, *command, env=bucket.environment())
    unset = await run_cli(database_url, *command)

    assert copied.returncode == 0, copied.stderr
    assert "copied 1 file(s)" in copied.stdout and "1 skipped" in copied.stdout
    assert again.returncode == 0 and "copied 0 file(s)" in again.stdout and "1 already there" in again.stdout
    assert unset.returncode == 2 and "WARRANTY_STORAGE_URL" in unset.stderr
    assert bucket.objects() == [f"files/{receipt.storage_key}"]
    served = await client.get(url, headers=auth_headers(app, user))
    assert (served.status_code, served.content) == (200, PDF_BYTES)


@pytest.mark.parametrize("url", ["file:///var/files", "s3://", "s3://Bad_Bucket/files", "http://bucket/x"])
def test_a_storage_url_that_is_not_a_bucket_is_refused_at_start(
    make_settings: SettingsFactory, url: str
) -> None:
    with pytest.raises(ValidationError, match="WARRANTY_STORAGE_URL"):
        make_settings(storage_url=url)


def test_an_empty_storage_url_means_the_data_folder(make_settings: SettingsFactory) -> None:
    assert make_settings(storage_url="").storage_url is None
