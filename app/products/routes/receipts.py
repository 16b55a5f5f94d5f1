"""Receipts of a product (docs/api.md §5.7): upload, list, download, delete. The product must be
visible to the caller (else 404), and so the receipt is reached only through it; uploading and deleting
are writes (403 for a household viewer)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Response, UploadFile, status

from app.api.dependencies import SettingsDep, StorageDep
from app.api.openapi import errors
from app.products import service
from app.products.dependencies import ReceiptRepo, VisibleProduct, VisibleReceipt, WritableProduct
from app.products.receipt_records import ALLOWED, FOLDER, receipt_out
from app.products.schemas import ReceiptOut, receipt_url
from app.storage.files import content_disposition, display_file_name, read_upload
from app.storage.storage import delete_after_commit, discard_on_rollback, streamed

router = APIRouter(tags=["products"])  # included by app.products.routes under /api


@router.post(
    "/products/{id}/receipts",
    status_code=status.HTTP_201_CREATED,
    response_model=ReceiptOut,
    responses=errors(400, 401, 403, 404, 413, 415),
)
async def upload_receipt(
    writable: WritableProduct,
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
    receipt = await service.add_receipt(
        writable.product,
        receipts=receipts,
        file_name=display_file_name(file.filename, f"receipt.{kind.extension}"),
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
    responses=errors(401, 403, 404),
)
async def delete_receipt(
    writable: WritableProduct, receipt: VisibleReceipt, receipts: ReceiptRepo, storage: StorageDep
) -> None:
    """Delete a receipt; its file goes once the deletion is committed."""
    await service.delete_receipt(writable.product, receipt, receipts=receipts)
    delete_after_commit(receipts.session, storage, [receipt.storage_key])
