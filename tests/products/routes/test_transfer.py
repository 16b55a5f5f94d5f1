"""Products in and out of spreadsheets (app.products.routes.transfer, contract 15.3): `GET
/api/products/export.csv` streams the caller's products in chunks with the list's filters and sort;
`POST /api/products/import` creates them all or nothing, within its size and row limits, in a few
statements."""

from __future__ import annotations

from datetime import UTC, date, datetime

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from app.products.routes import transfer
from tests.factories.households import household_cast
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_user
from tests.helpers import assert_error, count_queries
from tests.products.support import IMPORT_HEADER, exported_rows, import_csv, listed, product_count

NOW = datetime(2026, 3, 10, 12, 30, tzinfo=UTC)


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
        by_brand = exported_rows(
            await client.get("/api/products/export.csv?brand=BOSCH&sort=name&order=asc", headers=headers)
        )
        expired = exported_rows(
            await client.get("/api/products/export.csv?warrantyStatus=expired", headers=headers)
        )
        searched = exported_rows(await client.get("/api/products/export.csv?search=GRIND", headers=headers))
        admins = exported_rows(await client.get("/api/products/export.csv", headers=admin_headers))

    assert [row["name"] for row in by_brand] == ["a toaster", "B kettle"]
    assert [row["name"] for row in expired] == ["a toaster"]
    assert [row["name"] for row in searched] == ["C grinder"]
    assert [row["name"] for row in admins] == ["Admin's"]  # like GET /api/products: one's own


async def test_an_owner_without_products_gets_the_header_only(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    assert exported_rows(await client.get("/api/products/export.csv", headers=auth_headers(app, owner))) == []


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
        rows = exported_rows(
            await client.get(f"/api/products/export.csv?sort={sort}&order=asc", headers=headers)
        )

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


async def test_valid_rows_are_created_as_the_api_would_create_them(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)
    data = (
        IMPORT_HEADER
        + '  Espresso machine ,Gaggia,Kitchen,2024-01-31,25,"Coffee & Co",499.9,SN-1\r\n'
        + "Kettle,Bosch,Kitchen,2025-06-01,0,,,\r\n"
        + "\r\n"  # a blank line, as spreadsheets leave
    )

    response = await import_csv(client, headers, data)

    assert response.status_code == 201, response.text
    assert response.json() == {"created": 2}
    products = await listed(client, headers)
    assert [(p["name"], p["brand"], p["store"], p["price"], p["serialNumber"]) for p in products] == [
        ("Espresso machine", "Gaggia", "Coffee & Co", 499.9, "SN-1"),
        ("Kettle", "Bosch", None, None, None),
    ]
    assert products[0]["purchaseDate"] == "2024-01-31T00:00:00+00:00"
    assert products[0]["warrantyPeriodMonths"] == 25
    assert products[0]["warrantyExpiresAt"] == "2026-02-28T00:00:00+00:00"  # the API's own arithmetic
    assert products[1]["warrantyExpiresAt"] == "2025-06-01T00:00:00+00:00"


@pytest.mark.settings(max_import_rows=3)
async def test_more_rows_than_allowed_are_refused_whole(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)
    row = "A,B,C,2024-01-01,12,,,\r\n"
    assert (await import_csv(client, headers, IMPORT_HEADER + row * 3)).json() == {"created": 3}
    body = assert_error(await import_csv(client, headers, IMPORT_HEADER + row * 4), 400, "VALIDATION_FAILED")
    assert body["details"]["fields"] == {"file": "has more than 3 rows"}
    assert await product_count(app) == 3


@pytest.mark.settings(max_import_size=200)
async def test_a_file_over_the_size_limit_is_a_413_before_it_is_read(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    body = assert_error(
        await import_csv(client, auth_headers(app, owner), IMPORT_HEADER + "x" * 300),
        413,
        "PAYLOAD_TOO_LARGE",
    )
    assert body["details"] == {"maxBytes": 200}


async def test_the_import_needs_a_file_and_a_signed_in_user(app: FastAPI, client: httpx.AsyncClient) -> None:
    assert_error(await import_csv(client, {}, IMPORT_HEADER), 401, "AUTH_REQUIRED")
    owner = await create_user(app)
    response = await client.post("/api/products/import", data={"x": "1"}, headers=auth_headers(app, owner))
    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert body["details"]["fields"] == {"file": "Field required"}


async def test_five_thousand_rows_go_in_with_a_few_statements(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)
    data = IMPORT_HEADER + "".join(
        f"Product {n},Brand,Kitchen,2024-01-01,{n % 600},,{n}.5,SN{n}\r\n" for n in range(5000)
    )

    with count_queries(app) as statements:
        response = await import_csv(client, headers, data)

    assert response.json() == {"created": 5000}
    inserts = [s for s in statements if s.lstrip().upper().startswith("INSERT INTO PRODUCTS")]
    assert 1 <= len(inserts) <= 10  # multi-row INSERTs, never one per product
    assert await product_count(app) == 5000
    page = (await client.get("/api/products?limit=1&sort=name&order=desc", headers=headers)).json()
    assert page["meta"]["total"] == 5000
    assert page["data"][0]["name"] == "Product 999"


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

    async def names(query: str) -> list[str]:
        rows = exported_rows(await client.get(f"/api/products/export.csv{query}", headers=headers))
        return sorted(row["name"] for row in rows)

    assert await names("") == ["Fridge", "Viewer's own"]
    assert await names("?owner=me") == ["Viewer's own"]
    assert await names(f"?householdId={cast.household.id}") == ["Fridge"]
    shown = (await client.get("/api/products", headers=headers)).json()
    assert sorted(item["name"] for item in shown) == await names("")


async def test_an_import_shares_nothing_a_household_column_is_refused(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await household_cast(app)
    data = (
        "name,brand,category,purchaseDate,warrantyPeriodMonths,householdId\r\n"
        f"Kettle,Bosch,Kitchen,2025-01-01,24,{cast.household.id}\r\n"
    )

    response = await import_csv(client, auth_headers(app, cast.owner), data)

    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert "unknown columns: householdId" in body["details"]["fields"]["file"]
    assert await product_count(app) == 0
