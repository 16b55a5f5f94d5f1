"""`POST /api/products/import` (contract 15.3): CSV rows checked with the create rules, all or nothing."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.models import Product
from tests.factories.households import household_cast
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error, count_queries

HEADER = "name,brand,category,purchaseDate,warrantyPeriodMonths,store,price,serialNumber\r\n"


async def _import(
    client: httpx.AsyncClient, headers: dict[str, str], data: str | bytes, name: str = "products.csv"
) -> httpx.Response:
    content = data.encode() if isinstance(data, str) else data
    return await client.post(
        "/api/products/import", files={"file": (name, content, "text/csv")}, headers=headers
    )


async def _count(app: FastAPI) -> int:
    async with app.state.sessionmaker() as session:
        return int(await session.scalar(select(func.count(Product.id))) or 0)


async def _listed(client: httpx.AsyncClient, headers: dict[str, str]) -> list[dict[str, Any]]:
    response = await client.get("/api/products?sort=name&order=asc", headers=headers)
    assert response.status_code == 200, response.text
    products: list[dict[str, Any]] = response.json()
    return products


async def test_valid_rows_are_created_as_the_api_would_create_them(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)
    data = (
        HEADER
        + '  Espresso machine ,Gaggia,Kitchen,2024-01-31,25,"Coffee & Co",499.9,SN-1\r\n'
        + "Kettle,Bosch,Kitchen,2025-06-01,0,,,\r\n"
        + "\r\n"  # a blank line, as spreadsheets leave
    )

    response = await _import(client, headers, data)

    assert response.status_code == 201, response.text
    assert response.json() == {"created": 2}
    products = await _listed(client, headers)
    assert [(p["name"], p["brand"], p["store"], p["price"], p["serialNumber"]) for p in products] == [
        ("Espresso machine", "Gaggia", "Coffee & Co", 499.9, "SN-1"),
        ("Kettle", "Bosch", None, None, None),
    ]
    assert products[0]["purchaseDate"] == "2024-01-31T00:00:00+00:00"
    assert products[0]["warrantyPeriodMonths"] == 25
    assert products[0]["warrantyExpiresAt"] == "2026-02-28T00:00:00+00:00"  # the API's own arithmetic
    assert products[1]["warrantyExpiresAt"] == "2025-06-01T00:00:00+00:00"


async def test_an_export_imports_again_unchanged(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner, other = await create_user(app), await create_user(app)
    await create_product(app, owner, name="=SUM(A1:A2)", store='-Discount, "outlet"', serial_number="@1")
    await create_product(app, owner, name="Lamp\nwith a long name", brand="Ikea", category="Home")
    exported = await client.get("/api/products/export.csv", headers=auth_headers(app, owner))

    response = await _import(client, auth_headers(app, other), exported.content)

    assert response.status_code == 201, response.text
    fields = (
        "name",
        "brand",
        "category",
        "purchaseDate",
        "warrantyPeriodMonths",
        "store",
        "price",
        "serialNumber",
    )
    original = [{f: p[f] for f in fields} for p in await _listed(client, auth_headers(app, owner))]
    imported = [{f: p[f] for f in fields} for p in await _listed(client, auth_headers(app, other))]
    assert imported == original
    assert imported[0]["name"] == "=SUM(A1:A2)"  # the export's quote is taken off again


async def test_any_invalid_row_creates_nothing_and_names_each_problem_as_the_api_does(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)
    data = (
        HEADER
        + "Good,Gaggia,Kitchen,2024-01-31,24,,,\r\n"  # row 2
        + "Future,Gaggia,Kitchen,2999-01-01,601,,-1,\r\n"  # row 3
        + ",Gaggia,Kitchen,2024-01-31,twelve,,4.999,\r\n"  # row 4
        + "Good too,Gaggia,Kitchen,2024-02-30,24,,,\r\n"  # row 5
    )

    response = await _import(client, headers, data)

    body = assert_error(response, 400, "VALIDATION_FAILED")
    rows = body["details"]["rows"]
    assert set(rows) == {"3", "4", "5"}
    # What POST /api/products answers for the same values.
    same_rules = {
        "3": {"name": "Future", "purchaseDate": "2999-01-01", "warrantyPeriodMonths": 601, "price": -1},
        "4": {"purchaseDate": "2024-01-31", "warrantyPeriodMonths": "twelve", "price": 4.999},
        "5": {"name": "Good too", "purchaseDate": "2024-02-30", "warrantyPeriodMonths": 24},
    }
    for number, values in same_rules.items():
        api = await client.post(
            "/api/products", json={"brand": "Gaggia", "category": "Kitchen", **values}, headers=headers
        )
        assert rows[number] == assert_error(api, 400, "VALIDATION_FAILED")["details"]["fields"], number
    assert set(rows["3"]) == {"purchaseDate", "warrantyPeriodMonths", "price"}
    assert set(rows["4"]) == {"name", "warrantyPeriodMonths", "price"}
    assert await _count(app) == 0


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", "is empty: the first row names the columns"),
        (HEADER.encode(), "has no product rows"),
        (b"name,brand,colour\r\nA,B,red\r\n", "has unknown columns: colour"),
        (b"name,brand,name\r\nA,B,C\r\n", "names a column twice: name"),
        ("name\r\nCaf\u00e9\r\n".encode("latin-1"), "is not UTF-8 text"),
        (b'name\r\n"unterminated\r\n', "is not valid CSV"),
    ],
)
async def test_a_file_that_cannot_be_read_is_a_400_on_the_file(
    app: FastAPI, client: httpx.AsyncClient, data: bytes, problem: str
) -> None:
    owner = await create_user(app)
    body = assert_error(await _import(client, auth_headers(app, owner), data), 400, "VALIDATION_FAILED")
    assert body["details"]["fields"]["file"].startswith(problem)
    assert await _count(app) == 0


async def test_a_row_with_more_cells_than_columns_is_named(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app)
    data = HEADER + "A,B,C,2024-01-01,12,,,,extra\r\n"
    body = assert_error(await _import(client, auth_headers(app, owner), data), 400, "VALIDATION_FAILED")
    assert body["details"]["rows"] == {"2": {"row": "has 9 cells; the header names 8 columns"}}


async def test_semicolons_a_byte_order_mark_and_missing_optional_columns_are_read(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)
    data = (
        "\ufeffname;brand;category;purchaseDate;warrantyPeriodMonths\r\nCafé;Ségur;Cuisine;2024-01-01;12\r\n"
    )
    response = await _import(client, headers, data.encode())
    assert response.status_code == 201, response.text
    assert [(p["name"], p["brand"]) for p in await _listed(client, headers)] == [("Café", "Ségur")]


NO_LENGTH = "Field required (or give warrantyEndsOn)"


@pytest.mark.parametrize(
    ("rows", "problems"),
    [
        (
            "A,B,C,2024-01-01\r\nD,E,F,2024-01-01\r\n",
            {"2": {"warrantyPeriodMonths": NO_LENGTH}, "3": {"warrantyPeriodMonths": NO_LENGTH}},
        ),
        (",B,C,2024-01-01\r\n", {"2": {"name": "Field required", "warrantyPeriodMonths": NO_LENGTH}}),
    ],
    ids=["on-every-row", "with-other-problems"],
)
async def test_a_missing_column_of_a_required_field_is_named_on_every_row_with_its_other_problems(
    app: FastAPI, client: httpx.AsyncClient, rows: str, problems: dict[str, dict[str, str]]
) -> None:
    owner = await create_user(app)
    data = "name,brand,category,purchaseDate\r\n" + rows
    body = assert_error(await _import(client, auth_headers(app, owner), data), 400, "VALIDATION_FAILED")
    assert body["details"]["rows"] == problems


@pytest.mark.settings(max_import_rows=3)
async def test_more_rows_than_allowed_are_refused_whole(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)
    row = "A,B,C,2024-01-01,12,,,\r\n"
    assert (await _import(client, headers, HEADER + row * 3)).json() == {"created": 3}
    body = assert_error(await _import(client, headers, HEADER + row * 4), 400, "VALIDATION_FAILED")
    assert body["details"]["fields"] == {"file": "has more than 3 rows"}
    assert await _count(app) == 3


@pytest.mark.settings(max_import_size=200)
async def test_a_file_over_the_size_limit_is_a_413_before_it_is_read(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    body = assert_error(
        await _import(client, auth_headers(app, owner), HEADER + "x" * 300), 413, "PAYLOAD_TOO_LARGE"
    )
    assert body["details"] == {"maxBytes": 200}


async def test_the_import_needs_a_file_and_a_signed_in_user(app: FastAPI, client: httpx.AsyncClient) -> None:
    assert_error(await _import(client, {}, HEADER), 401, "AUTH_REQUIRED")
    owner = await create_user(app)
    response = await client.post("/api/products/import", data={"x": "1"}, headers=auth_headers(app, owner))
    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert body["details"]["fields"] == {"file": "Field required"}


async def test_five_thousand_rows_go_in_with_a_few_statements(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)
    data = HEADER + "".join(
        f"Product {n},Brand,Kitchen,2024-01-01,{n % 600},,{n}.5,SN{n}\r\n" for n in range(5000)
    )

    with count_queries(app) as statements:
        response = await _import(client, headers, data)

    assert response.json() == {"created": 5000}
    inserts = [s for s in statements if s.lstrip().upper().startswith("INSERT INTO PRODUCTS")]
    assert 1 <= len(inserts) <= 10  # multi-row INSERTs, never one per product
    assert await _count(app) == 5000
    page = (await client.get("/api/products?limit=1&sort=name&order=desc", headers=headers)).json()
    assert page["meta"]["total"] == 5000
    assert page["data"][0]["name"] == "Product 999"


async def test_an_end_day_imports_under_the_rules_of_the_api(app: FastAPI, client: httpx.AsyncClient) -> None:
    headers = auth_headers(app, await create_user(app))
    header = "name,brand,category,purchaseDate,warrantyPeriodMonths,warrantyEndsOn\r\n"
    good = "Drill,Makita,Tools,2025-02-10,,2027-06-30\r\n"
    both: dict[str, Any] = {"warrantyPeriodMonths": 12, "warrantyEndsOn": "2027-06-30"}
    bad = {
        "3": ("Both,Makita,Tools,2025-02-10,12,2027-06-30\r\n", both),
        "4": ("Neither,Makita,Tools,2025-02-10,,\r\n", {}),
        "5": ("Early,Makita,Tools,2025-02-10,,2025-01-01\r\n", {"warrantyEndsOn": "2025-01-01"}),
    }

    refused = await _import(client, headers, header + good + "".join(line for line, _ in bad.values()))
    created = await _import(client, headers, header + good)

    rows = assert_error(refused, 400, "VALIDATION_FAILED")["details"]["rows"]
    assert set(rows) == set(bad)
    for number, (line, values) in bad.items():
        sent = {"name": line.split(",")[0], "brand": "Makita", "category": "Tools"}
        sent["purchaseDate"] = "2025-02-10"
        api = await client.post("/api/products", json=sent | values, headers=headers)
        assert rows[number] == assert_error(api, 400, "VALIDATION_FAILED")["details"]["fields"], number
    assert created.status_code == 201, created.text
    [drill] = await _listed(client, headers)
    assert (drill["warrantyPeriodMonths"], drill["warrantyEndsOn"]) == (None, "2027-06-30")
    assert drill["warrantyExpiresAt"] == "2027-06-30T00:00:00+00:00"


@pytest.mark.parametrize("repeats", [30_000, 300_000])
async def test_a_header_of_thousands_of_columns_is_refused_before_any_column_is_read(
    app: FastAPI, client: httpx.AsyncClient, repeats: int
) -> None:
    """A header repeating one column 30,000 times (90 KB) took 9.5 s to refuse, growing with its square
    (300,000 would have taken hours): a header longer than any file can need is refused by its length."""
    owner = await create_user(app)
    data = ",".join(["name"] * repeats) + "\r\nA\r\n"
    body = assert_error(await _import(client, auth_headers(app, owner), data), 400, "VALIDATION_FAILED")
    assert body["details"]["fields"] == {"file": f"has {repeats} columns; at most 100 are read"}
    assert await _count(app) == 0


async def test_columns_named_twice_are_each_named_once(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app)
    data = ",".join(["brand", "name", "name", "store", "brand", "name", *["price"] * 90]) + "\r\nA\r\n"
    body = assert_error(await _import(client, auth_headers(app, owner), data), 400, "VALIDATION_FAILED")
    assert body["details"]["fields"] == {"file": "names a column twice: brand, name, price"}


async def test_unknown_columns_are_named_briefly(app: FastAPI, client: httpx.AsyncClient) -> None:
    """The answer names a few unknown columns, each cut short: a 5 MB header is not echoed back."""
    owner = await create_user(app)
    data = ",".join(["name", "x" * 100_000, *[f"extra{n}" for n in range(50)]]) + "\r\nA\r\n"
    body = assert_error(await _import(client, auth_headers(app, owner), data), 400, "VALIDATION_FAILED")
    problem = body["details"]["fields"]["file"]
    assert problem.startswith(f"has unknown columns: {'x' * 40}..., extra0, extra1, ")
    assert "extra8, ... (51 in all; known: name, brand," in problem and len(problem) < 500


async def test_an_import_shares_nothing_a_household_column_is_refused(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await household_cast(app)
    data = (
        "name,brand,category,purchaseDate,warrantyPeriodMonths,householdId\r\n"
        f"Kettle,Bosch,Kitchen,2025-01-01,24,{cast.household.id}\r\n"
    )

    response = await _import(client, auth_headers(app, cast.owner), data)

    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert "unknown columns: householdId" in body["details"]["fields"]["file"]
    assert await _count(app) == 0
