"""Products, written straight to the database."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from fastapi import FastAPI

from app.models import Product, User
from app.products.warranty import expiry_date


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
