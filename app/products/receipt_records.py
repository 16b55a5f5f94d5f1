"""Receipts of a product: their repository, display names and wire shape (the routes are in
app.products.routes.receipts)."""

from __future__ import annotations

from sqlalchemy import select

from app.core.ids import MAX_ID
from app.core.repository import Repository
from app.models import Product, Receipt
from app.products.schemas import ReceiptOut, receipt_url

FOLDER = "receipts"
ALLOWED = {"pdf", "jpg", "png", "webp"}


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
        return receipt

    async def delete(self, receipt: Receipt) -> None:
        await self.session.delete(receipt)
        await self.session.flush()
