"""The products routes' own dependencies (app.products.dependencies): the product and receipt a path names,
seen by their owner and admins, 404 alike for anyone else and for what does not exist, the receipt only
through its own product; a valid id; the list's filter and sort."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.errors import ValidationFailed
from app.models import Product, Receipt
from app.products.dependencies import product_filter, product_sort
from app.products.repository import SORT_COLUMNS, ProductFilter, ProductSort
from tests.factories.products import create_product, create_receipt
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error
from tests.products.support import receipt_count
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


@pytest.mark.parametrize("path", ["/api/products/999999", "/api/products/0", "/api/products/99999999999"])
async def test_unknown_product_is_404(app: FastAPI, client: httpx.AsyncClient, path: str) -> None:
    user = await create_user(app)

    assert_error(await client.get(path, headers=auth_headers(app, user)), 404, "NOT_FOUND")


async def test_a_non_numeric_id_is_400(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)

    assert_error(
        await client.get("/api/products/abc", headers=auth_headers(app, user)), 400, "VALIDATION_FAILED"
    )


@pytest.mark.parametrize(
    "query", ["sort=price", "sort=NAME", "sort=", "order=up", "order=", "sort=name&order=sideways"]
)
async def test_unknown_sort_or_order_is_400(app: FastAPI, client: httpx.AsyncClient, query: str) -> None:
    user = await create_user(app)
    admin = await create_admin(app)

    for path, caller in (("/api/products", user), ("/api/admin/products", admin)):
        response = await client.get(f"{path}?{query}", headers=auth_headers(app, caller))
        assert_error(response, 400, "VALIDATION_INVALID_SORT")


async def test_an_unknown_warranty_status_is_400(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)

    response = await client.get("/api/products?warrantyStatus=soon", headers=auth_headers(app, user))

    assert "warrantyStatus" in assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]


async def test_a_receipt_is_reached_only_through_its_own_product(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app)
    first, second = await create_product(app, user), await create_product(app, user)
    receipt = await create_receipt(app, first)
    headers = auth_headers(app, user)

    for path in (
        f"/api/products/{second.id}/receipts/{receipt.id}/file",
        f"/api/products/{first.id}/receipts/999999/file",
        f"/api/products/{first.id}/receipts/99999999999/file",
    ):
        assert_error(await client.get(path, headers=headers), 404, "NOT_FOUND")
    wrong = await client.delete(f"/api/products/{second.id}/receipts/{receipt.id}", headers=headers)
    assert_error(wrong, 404, "NOT_FOUND")
    assert await receipt_count(app) == 1


async def test_the_list_sort_is_read_as_sent_around_its_spaces_and_the_order_in_any_case() -> None:
    assert await product_sort() == ProductSort("createdAt", "desc")
    assert await product_sort(sort=" name ", order=" ASC ") == ProductSort("name", "asc")
    for sort, order in (("price", None), ("NAME", None), ("", None), (None, "up")):
        with pytest.raises(ValidationFailed) as refused:
            await product_sort(sort=sort, order=order)
        assert refused.value.code == "VALIDATION_INVALID_SORT"
        assert refused.value.details == {"allowedSort": list(SORT_COLUMNS), "allowedOrder": ["asc", "desc"]}


async def test_a_blank_list_filter_is_no_filter() -> None:
    assert await product_filter(brand="  ", category=" Tools ", warranty_status="void", search="") == (
        ProductFilter(category="Tools", warranty_status="void")
    )
    assert await product_filter() == ProductFilter()
