"""Receipts of a product (spec 2.2, contract 4): upload, list, download, delete. The product must be
visible to the caller (else 404), and so the receipt is reached only through it."""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated

from fastapi import APIRouter, Depends, File, Path, Response, UploadFile, status
from sqlalchemy import select

from app.changes.dispatch import record
from app.changes.events import ProductsChanged
from app.core.deps import SettingsDep
from app.core.files import content_disposition, read_upload
from app.core.ids import DIGITS_ONLY, MAX_ID
from app.core.openapi import errors
from app.core.repository import Repository
from app.core.storage import StorageDep, delete_after_commit, discard_on_rollback, streamed
from app.errors import NotFound
from app.models import Product, Receipt
from app.products.dependencies import VisibleProduct
from app.products.schemas import ReceiptOut, receipt_url

router = APIRouter(tags=["products"])  # included by app.products.router under /api

FOLDER = "receipts"
ALLOWED = {"pdf", "jpg", "png", "webp"}
# Clients that do not know the type send these; then the bytes alone decide.
_UNSAFE = re.compile(r"[\x00-\x1f\x7f]+")


def display_name(raw: str | None, extension: str) -> str:
    """The client's file name, for display only: no folders, no control characters, at most 255
    characters (the extension kept); `receipt.<ext>` when nothing is left."""
    name = unicodedata.normalize("NFC", raw or "").replace("\\", "/").rsplit("/", 1)[-1]
    name = " ".join(_UNSAFE.sub(" ", name).split()).strip(" .")
    if not name:
        return f"receipt.{extension}"
    if len(name) > 255:
        stem, dot, suffix = name.rpartition(".")
        name = f"{stem[: 254 - len(suffix)]}.{suffix}" if dot and len(suffix) <= 16 else name[:255]
    return name


def receipt_out(receipt: Receipt) -> ReceiptOut:
    return ReceiptOut(
        id=receipt.id,
        file_name=receipt.file_name,
        file_type=receipt.file_type,
        mime_type=receipt.mime_type,
        size=receipt.size,
        created_at=receipt.created_at,
        url=receipt_url(receipt.product_id, receipt.id),
    )


class ReceiptRepository(Repository):
    async def of_product(self, product_id: int) -> list[Receipt]:
        result = await self.session.scalars(
            select(Receipt).where(Receipt.product_id == product_id).order_by(Receipt.id)
        )
        return list(result)

    async def get(self, product_id: int, receipt_id: int) -> Receipt | None:
        if not 1 <= receipt_id <= MAX_ID:
            return None
        return await self.session.scalar(
            select(Receipt).where(Receipt.id == receipt_id, Receipt.product_id == product_id)
        )

    async def add(self, product: Product, **fields: object) -> Receipt:
        receipt = Receipt(product_id=product.id, **fields)
        self.session.add(receipt)
        await self.session.flush()
        await record(self.session, ProductsChanged(product.owner_id))
        return receipt

    async def delete(self, product: Product, receipt: Receipt) -> None:
        await self.session.delete(receipt)
        await self.session.flush()
        await record(self.session, ProductsChanged(product.owner_id))


ReceiptRepo = Annotated[ReceiptRepository, Depends(ReceiptRepository.dependency)]


async def visible_receipt(
    visible: VisibleProduct,
    receipt_id: Annotated[int, Path(alias="receiptId", description="The receipt's id."), DIGITS_ONLY],
    receipts: ReceiptRepo,
) -> Receipt:
    receipt = await receipts.get(visible.product.id, receipt_id)
    if receipt is None:
        raise NotFound("No such receipt.")
    return receipt


VisibleReceipt = Annotated[Receipt, Depends(visible_receipt)]


@router.post(
    "/products/{id}/receipts",
    status_code=status.HTTP_201_CREATED,
    response_model=ReceiptOut,
    responses=errors(400, 401, 404, 413, 415),
)
async def upload_receipt(
    visible: VisibleProduct,
    file: Annotated[UploadFile, File(description="A pdf, jpg, png or webp file.")],
    response: Response,
    receipts: ReceiptRepo,
    storage: StorageDep,
    settings: SettingsDep,
) -> ReceiptOut:
    """Attach a receipt (multipart field `file`). The bytes decide the type: a file name or part type
    that says otherwise is a 415, as is any other type; over WARRANTY_MAX_RECEIPT_SIZE (or the image
    pixel limit) a 413. `fileName` is the client's name, cleaned for display; the stored name is
    generated."""
    data, kind = await read_upload(
        file, allowed=ALLOWED, max_size=settings.max_receipt_size, max_pixels=settings.max_image_pixels
    )
    key = await storage.save(FOLDER, data, kind.extension)
    discard_on_rollback(receipts.session, storage, key)
    receipt = await receipts.add(
        visible.product,
        file_name=display_name(file.filename, kind.extension),
        file_type=kind.extension,
        mime_type=kind.mime_type,
        size=len(data),
        storage_key=key,
    )
    response.headers["Location"] = receipt_url(receipt.product_id, receipt.id)
    return receipt_out(receipt)


@router.get("/products/{id}/receipts", response_model=list[ReceiptOut], responses=errors(401, 404))
async def list_receipts(visible: VisibleProduct, receipts: ReceiptRepo) -> list[ReceiptOut]:
    """The product's receipts, oldest first."""
    return [receipt_out(receipt) for receipt in await receipts.of_product(visible.product.id)]


@router.get(
    "/products/{id}/receipts/{receiptId}/file",
    response_class=Response,
    responses={200: {"content": {"application/pdf": {}, "image/png": {}}}, **errors(401, 404)},
)
async def download_receipt(receipt: VisibleReceipt, storage: StorageDep) -> Response:
    """The receipt's bytes, as an attachment named as uploaded."""
    download = await storage.open(receipt.storage_key)
    return streamed(
        download,
        receipt.mime_type,
        {
            "Content-Disposition": content_disposition(receipt.file_name),
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "private, no-store",
        },
    )


@router.delete(
    "/products/{id}/receipts/{receiptId}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(401, 404),
)
async def delete_receipt(
    visible: VisibleProduct, receipt: VisibleReceipt, receipts: ReceiptRepo, storage: StorageDep
) -> None:
    """Delete a receipt; its file goes once the deletion is committed."""
    await receipts.delete(visible.product, receipt)
    delete_after_commit(receipts.session, storage, [receipt.storage_key])
