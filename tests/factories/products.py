"""Products, written straight to the database."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from fastapi import FastAPI

from app.models import Product, Receipt, User
from app.products.warranty import expiry_date
from tests.support.pdf import PDF_BYTES


async def create_product(
    app: FastAPI,
    owner: User,
    *,
    name: str = "Espresso machine",
    brand: str = "Gaggia",
    category: str = "Kitchen",
    purchase_date: date = date(2026, 1, 15),
    warranty_period_months: int = 24,
    price: Decimal | None = None,
    **fields: Any,
) -> Product:
    async with app.state.sessionmaker() as session, session.begin():
        product = Product(
            owner_id=owner.id,
            name=name,
            brand=brand,
            category=category,
            purchase_date=purchase_date,
            warranty_period_months=warranty_period_months,
            warranty_expires_on=expiry_date(purchase_date, warranty_period_months),
            price=price,
            **fields,
        )
        session.add(product)
    return product


async def create_receipt(
    app: FastAPI, product: Product, *, file_name: str = "receipt.pdf", data: bytes = PDF_BYTES
) -> Receipt:
    """A PDF receipt of `product`, its file in the app's storage."""
    key = await app.state.storage.save("receipts", data, "pdf")
    async with app.state.sessionmaker() as session, session.begin():
        receipt = Receipt(
            product_id=product.id,
            file_name=file_name,
            file_type="pdf",
            mime_type="application/pdf",
            size=len(data),
            storage_key=key,
        )
        session.add(receipt)
    return receipt
