"""Issuing return authorisations: the issuer's side, the label's kind, the claim's one authorisation, and
numbers that stay given when their claim is deleted."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.errors import Forbidden, NotFound, UnsupportedMediaType
from app.messages.service import AttachmentUpload
from app.models import Claim, ReturnAuthorization
from app.returns import service
from tests.claims.routed import open_claim
from tests.factories.products import create_product
from tests.factories.users import auth_headers
from tests.returns.support import claim_in_progress, issue
from tests.support.images import image_bytes
from tests.support.pdf import PDF_BYTES


async def test_the_customer_side_is_no_issuer(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_in_progress(app, client)
    async with app.state.sessionmaker() as session:
        claim = await session.get(Claim, cast.claim_id)
        assert claim is not None
        await service.ensure_issuer(session, cast.agent, claim)
        await service.ensure_issuer(session, cast.admin, claim)
        with pytest.raises(Forbidden):
            await service.ensure_issuer(session, cast.customer, claim)
        with pytest.raises(NotFound):
            await service.rma_of(session, claim)


async def test_a_label_is_a_pdf_by_its_bytes_name_and_type(app: FastAPI) -> None:
    settings = app.state.settings
    label = await service.check_label(
        AttachmentUpload(PDF_BYTES, "dir/label.pdf", "application/pdf"), settings
    )
    assert label.file_name == "label.pdf" and label.data == PDF_BYTES
    for upload in (
        AttachmentUpload(image_bytes(), "label.pdf", None),
        AttachmentUpload(PDF_BYTES, "label.png", None),
        AttachmentUpload(PDF_BYTES, "label.pdf", "image/png"),
    ):
        with pytest.raises(UnsupportedMediaType):
            await service.check_label(upload, settings)


async def test_a_deleted_claims_number_is_not_given_again(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_in_progress(app, client)
    first = (await issue(app, client, cast, cast.agent)).json()["number"]
    deleted = await client.delete(
        f"/api/products/{cast.product.id}", headers=auth_headers(app, cast.customer)
    )
    assert deleted.status_code == 204, deleted.text
    async with app.state.sessionmaker() as session:
        assert list(await session.scalars(select(ReturnAuthorization.number))) == []

    product = await create_product(app, cast.customer, name="Dryer", brand="Acme")
    claim = await open_claim(client, app, cast.customer, product)
    path, agent = f"/api/claims/{claim['id']}", auth_headers(app, cast.agent)
    assert (
        await client.post(f"{path}/status", json={"status": "in_progress"}, headers=agent)
    ).status_code == 200
    second = (await client.post(f"{path}/rma", json={}, headers=agent)).json()["number"]

    assert second != first and int(second[-6:]) == int(first[-6:]) + 1


async def test_a_deleted_claims_label_file_goes_with_it(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_in_progress(app, client)
    label = {
        "dataUrl": "data:application/pdf;base64,JVBERi0xLjQKMSAwIG9iajw8Pj5lbmRvYmoKdHJhaWxlcjw8Pj4KJSVFT0YK",
        "fileName": "l.pdf",
    }
    assert (await issue(app, client, cast, cast.agent, label=label)).status_code == 201
    async with app.state.sessionmaker() as session:
        key = await session.scalar(select(ReturnAuthorization.label_key))
    assert key is not None and await app.state.storage.exists(key)

    deleted = await client.delete(
        f"/api/products/{cast.product.id}", headers=auth_headers(app, cast.customer)
    )

    assert deleted.status_code == 204, deleted.text
    assert not await app.state.storage.exists(key)
