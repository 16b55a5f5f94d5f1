"""Products in and out of spreadsheets (docs/api.md §13): `GET /api/products/export.csv` streams the products
the caller's list shows; `POST /api/products/import` creates many at once, all or nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, File, Request, Response, UploadFile, status
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.api.dependencies import CurrentUser, SettingsDep
from app.api.openapi import errors
from app.config import Settings
from app.core.clock import utc_today
from app.errors import PayloadTooLarge, ValidationFailed
from app.models import User
from app.products import service
from app.products.csv_format import CsvProblem, export_lines, read_products
from app.products.dependencies import ProductOrder, ProductRepo, ViewerQuery
from app.products.repository import ProductFilter, ProductRepository, ProductSort
from app.products.schemas import ProductOut

router = APIRouter(tags=["products"])  # included by app.products.routes under /api, before /products/{id}

CHUNK = 500  # products read per query while exporting
CSV_TYPE = "text/csv; charset=utf-8"
CSV_EXAMPLE = {
    "schema": {"type": "string"},
    "example": "id,name,brand,category,purchaseDate,warrantyPeriodMonths,warrantyEndsOn,warrantyExpiresAt,"
    "warrantyStatus,store,price,serialNumber,hasActiveClaim,createdAt,updatedAt\r\n"
    "7,Espresso machine,Gaggia,Kitchen,2026-01-15,24,,2028-01-15,active,Coffee & Co,499.99,,false,"
    "2026-01-15T09:30:00+00:00,2026-01-15T09:30:00+00:00\r\n",
}


async def _csv_chunks(
    sessions: async_sessionmaker[AsyncSession], user: User, where: ProductFilter, sort: ProductSort, soon: int
) -> AsyncIterator[bytes]:
    """The header, then the products CHUNK at a time, each chunk read by its own short query after the
    last one's sort key: memory stays flat however many products there are."""
    today, after = utc_today(), None
    yield export_lines([], header=True)
    while True:
        async with sessions() as session:
            rows = await ProductRepository(session).page(
                user, where, sort, today=today, expiring_soon_days=soon, limit=CHUNK, after=after
            )
        products = [
            ProductOut.of(
                row,
                owner_name=row.owner_name,
                has_active_claim=row.has_active_claim,
                today=today,
                expiring_soon_days=soon,
            )
            for row in rows
        ]
        yield export_lines(products, header=False)
        if len(rows) < CHUNK:
            return
        after = (rows[-1].sort_key, rows[-1].id)


@router.get(
    "/products/export.csv",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/csv": CSV_EXAMPLE}, "description": "UTF-8 CSV."}, **errors(400, 401)},
)
async def export_products(
    request: Request, user: CurrentUser, where: ViewerQuery, sort: ProductOrder, settings: SettingsDep
) -> StreamingResponse:
    """The products of `GET /api/products` (the caller's own and those shared with their households) as
    CSV (UTF-8, a header row, RFC 4180 quoting), with its filters (`owner=me` and `householdId`
    included) and sort. Text cells that a spreadsheet would run as a formula (starting with `=`, `+`, `-`,
    `@`, tab or CR) are prefixed with `'`. Streamed: any number of products."""
    chunks = _csv_chunks(request.app.state.read_sessionmaker, user, where, sort, settings.expiring_soon_days)
    return StreamingResponse(
        chunks,
        media_type=CSV_TYPE,
        headers={"Content-Disposition": 'attachment; filename="products.csv"', "Cache-Control": "no-store"},
    )


class ImportResult(BaseModel):
    created: int = Field(examples=[120])


async def _read_file(upload: UploadFile, settings: Settings) -> bytes:
    data = await upload.read(settings.max_import_size + 1)
    if len(data) > settings.max_import_size:
        raise PayloadTooLarge(
            f"The file is larger than {settings.max_import_size} bytes.",
            details={"maxBytes": settings.max_import_size},
        )
    return data


@router.post(
    "/products/import",
    status_code=status.HTTP_201_CREATED,
    response_model=ImportResult,
    responses=errors(400, 401, 413),
)
async def import_products(
    file: Annotated[
        UploadFile, File(description="CSV: a header row naming the create fields, then products.")
    ],
    response: Response,
    user: CurrentUser,
    products: ProductRepo,
    settings: SettingsDep,
) -> dict[str, Any]:
    """Create products from a CSV file (multipart field `file`): a header row naming the create fields
    (`name`, `brand`, `category`, `purchaseDate`, `warrantyPeriodMonths` or `warrantyEndsOn`, `store`,
    `price`, `serialNumber`; the export's other columns are skipped), then one product per row, at most
    WARRANTY_MAX_IMPORT_ROWS. Each row is checked with the rules of `POST /api/products`. All valid:
    201 `{"created": N}`. Any invalid: 400 VALIDATION_FAILED with `details.rows` (row number as a
    spreadsheet shows it, the header being row 1 -> field -> problem), and nothing is created."""
    data = await _read_file(file, settings)
    try:
        rows, problems = await anyio.to_thread.run_sync(read_products, data, settings.max_import_rows)
    except CsvProblem as problem:
        raise ValidationFailed.field("file", str(problem)) from None
    if problems:
        raise ValidationFailed(
            f"{len(problems)} of {len(rows) + len(problems)} rows are not valid; nothing was imported.",
            details={"rows": problems},
        )
    await service.import_rows(user, rows, products=products)
    response.headers["Location"] = "/api/products"
    return {"created": len(rows)}
