"""What the products' tests share: the smallest valid create body, and CSV files in and out of the API
(`POST /api/products/import`, `GET /api/products/export.csv`)."""

from __future__ import annotations

import csv
import io
from datetime import datetime
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select

from app.core.clock import frozen_time
from app.models import Product, Receipt

# `POST /api/products` with the required fields only.
MINIMAL = {
    "name": "Espresso machine",
    "brand": "Gaggia",
    "category": "Kitchen",
    "purchaseDate": "2026-01-15",
    "warrantyPeriodMonths": 24,
}
# A product whose warranty length or end day each test gives (`create_drill`).
DRILL = {"name": "Drill", "brand": "Makita", "category": "Tools", "purchaseDate": "2025-02-10"}

# The import's columns: the create fields.
IMPORT_HEADER = "name,brand,category,purchaseDate,warrantyPeriodMonths,store,price,serialNumber\r\n"
# The export's columns: the product as the API shows it.
EXPORT_HEADER = [
    "id", "name", "brand", "category", "purchaseDate", "warrantyPeriodMonths", "warrantyEndsOn",
    "warrantyExpiresAt", "warrantyStatus", "store", "price", "serialNumber", "hasActiveClaim", "createdAt",
    "updatedAt",
]  # fmt: skip


async def create_drill(
    client: httpx.AsyncClient, headers: dict[str, str], at: datetime, **fields: Any
) -> httpx.Response:
    """`POST /api/products` of DRILL with `fields`, the clock at `at`."""
    with frozen_time(at):
        return await client.post("/api/products", json=DRILL | fields, headers=headers)


async def import_csv(
    client: httpx.AsyncClient, headers: dict[str, str], data: str | bytes, name: str = "products.csv"
) -> httpx.Response:
    content = data.encode() if isinstance(data, str) else data
    return await client.post(
        "/api/products/import", files={"file": (name, content, "text/csv")}, headers=headers
    )


def exported_rows(response: httpx.Response) -> list[dict[str, str]]:
    """The export's rows by column, once its header is the export's."""
    assert response.status_code == 200, response.text
    reader = csv.reader(io.StringIO(response.content.decode("utf-8"), newline=""))
    assert next(reader) == EXPORT_HEADER
    return [dict(zip(EXPORT_HEADER, record, strict=True)) for record in reader]


async def listed(client: httpx.AsyncClient, headers: dict[str, str]) -> list[dict[str, Any]]:
    """The caller's products by name."""
    response = await client.get("/api/products?sort=name&order=asc", headers=headers)
    assert response.status_code == 200, response.text
    products: list[dict[str, Any]] = response.json()
    return products


async def product_count(app: FastAPI) -> int:
    async with app.state.sessionmaker() as session:
        return int(await session.scalar(select(func.count(Product.id))) or 0)


async def receipt_count(app: FastAPI) -> int:
    async with app.state.sessionmaker() as session:
        return await session.scalar(select(func.count()).select_from(Receipt)) or 0
