"""Who may see a product and its receipts: the owner and admins; anyone else gets 404 on every route."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.models import Product, Receipt
from tests.factories.products import create_product, create_receipt
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error
from tests.support.pdf import PDF_BYTES

ROUTES: list[tuple[str, str]] = [
    ("GET", "/api/products/{p}"),
    ("PUT", "/api/products/{p}"),
    ("PATCH", "/api/products/{p}"),
    ("DELETE", "/api/products/{p}"),
    ("GET", "/api/products/{p}/receipts"),
    ("POST", "/api/products/{p}/receipts"),
    ("GET", "/api/products/{p}/receipts/{r}/file"),
    ("DELETE", "/api/products/{p}/receipts/{r}"),
]


async def send(client: httpx.AsyncClient, method: str, path: str, headers: dict[str, str]) -> httpx.Response:
    if method in ("PUT", "PATCH"):
        return await client.request(method, path, headers=headers, json={"name": "Taken over"})
    if method == "POST":
        files = {"file": ("x.pdf", PDF_BYTES, "application/pdf")}
        return await client.post(path, headers=headers, files=files)
    return await client.request(method, path, headers=headers)


@pytest.mark.parametrize(("method", "template"), ROUTES)
@pytest.mark.parametrize("maker", [create_user, create_supplier])
async def test_another_users_product_and_receipt_are_404(
    app: FastAPI, client: httpx.AsyncClient, method: str, template: str, maker: Callable[..., Any]
) -> None:
    owner = await create_user(app)
    product = await create_product(app, owner, name="Mine")
    receipt = await create_receipt(app, product)
    stranger = await maker(app)
    path = template.format(p=product.id, r=receipt.id)

    response = await send(client, method, path, auth_headers(app, stranger))

    body = assert_error(response, 404, "NOT_FOUND")
    assert "Mine" not in str(body)
    async with app.state.sessionmaker() as session:
        stored = await session.get(Product, product.id)
        receipts = list(await session.scalars(select(Receipt.id)))
    assert stored is not None and stored.name == "Mine"
    assert receipts == [receipt.id]
    assert app.state.storage.path(receipt.storage_key).exists()


async def test_the_404_is_the_same_for_a_missing_product(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner, stranger = await create_user(app), await create_user(app)
    product = await create_product(app, owner)
    headers = auth_headers(app, stranger)

    theirs = await client.get(f"/api/products/{product.id}", headers=headers)
    missing = await client.get(f"/api/products/{product.id + 1000}", headers=headers)

    assert theirs.json() == missing.json()


@pytest.mark.parametrize(("method", "template"), ROUTES)
async def test_an_admin_reaches_every_product(
    app: FastAPI, client: httpx.AsyncClient, method: str, template: str
) -> None:
    owner, admin = await create_user(app), await create_admin(app)
    product = await create_product(app, owner)
    receipt = await create_receipt(app, product)
    path = template.format(p=product.id, r=receipt.id)

    response = await send(client, method, path, auth_headers(app, admin))

    assert response.status_code in (200, 201, 204), response.text


async def test_a_product_stays_its_owners_when_an_admin_edits_it(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner, admin = await create_user(app), await create_admin(app)
    product = await create_product(app, owner)

    await client.patch(
        f"/api/products/{product.id}", json={"name": "Fixed"}, headers=auth_headers(app, admin)
    )

    listed = await client.get("/api/products", headers=auth_headers(app, owner))
    assert [(item["id"], item["name"]) for item in listed.json()] == [(product.id, "Fixed")]
    admins_own = await client.get("/api/products", headers=auth_headers(app, admin))
    assert admins_own.json() == []
