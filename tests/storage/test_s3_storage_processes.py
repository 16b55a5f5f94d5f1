"""Two service processes, each with a data folder of its own, on one PostgreSQL database and one bucket
(contract 14.3): a file uploaded through one is served by the other, and deleted through either."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.claims import attachment, claim_cast
from tests.factories.users import auth_headers
from tests.helpers import assert_error, wait_for
from tests.support.images import image_bytes
from tests.support.object_store import Bucket
from tests.support.pdf import PDF_BYTES
from tests.support.processes import until_healthy, uvicorn_process

pytestmark = pytest.mark.postgres_only


@pytest.fixture
async def hosts(
    database_url: str, bucket: Bucket, tmp_path: Path
) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    """Two service processes with data folders of their own, on the test's database and bucket."""
    with (
        uvicorn_process(database_url, tmp_path / "a", bucket.environment()) as first,
        uvicorn_process(database_url, tmp_path / "b", bucket.environment()) as second,
    ):
        await until_healthy(first)
        await until_healthy(second)
        async with (
            httpx.AsyncClient(base_url=first.url, timeout=20) as a,
            httpx.AsyncClient(base_url=second.url, timeout=20) as b,
        ):
            yield a, b


async def test_files_uploaded_through_one_process_are_served_and_deleted_through_the_other(
    app: FastAPI, hosts: tuple[httpx.AsyncClient, httpx.AsyncClient], bucket: Bucket, tmp_path: Path
) -> None:
    a, b = hosts
    cast = await claim_cast(app)
    customer, supplier = auth_headers(app, cast.customer), auth_headers(app, cast.supplier)

    receipt = await a.post(
        f"/api/products/{cast.product.id}/receipts",
        headers=customer,
        files={"file": ("invoice.pdf", PDF_BYTES, "application/pdf")},
    )
    picture = await b.post(
        "/api/user/profile-picture", headers=customer, files={"file": ("me.png", image_bytes(), "image/png")}
    )
    message = await a.post(
        f"/api/claims/{cast.claim.id}/messages",
        headers=customer,
        json={"attachment": attachment(image_bytes(size=(6, 6)), "crack.png", "image/png")},
    )
    assert (receipt.status_code, picture.status_code, message.status_code) == (201, 200, 201)

    served = await b.get(receipt.json()["url"], headers=customer)
    assert (served.status_code, served.content) == (200, PDF_BYTES)
    served = await a.get(picture.json()["profilePicture"], headers=supplier)
    assert (served.status_code, served.content) == (200, image_bytes())
    served = await b.get(
        f"/api/claims/{cast.claim.id}/messages/{message.json()['id']}/attachment", headers=supplier
    )
    assert (served.status_code, served.content) == (200, image_bytes(size=(6, 6)))
    assert len(bucket.objects()) == 3
    assert not (tmp_path / "a" / "files").exists() and not (tmp_path / "b" / "files").exists()

    deleted = await b.delete(
        f"/api/products/{cast.product.id}/receipts/{receipt.json()['id']}", headers=customer
    )
    assert deleted.status_code == 204
    assert_error(await a.get(receipt.json()["url"], headers=customer), 404, "NOT_FOUND")

    async def removed() -> bool:
        return not any(key.startswith("files/receipts/") for key in bucket.objects())

    await wait_for(removed)
    assert len(bucket.objects()) == 2
