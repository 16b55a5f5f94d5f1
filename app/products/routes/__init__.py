"""The products API, one module per resource: the lists, CSV export and import, receipts, and one product.
Included in this order: /products/export.csv comes before /products/{id}."""

from __future__ import annotations

from fastapi import APIRouter

from app.products.routes import lists, products, receipts, transfer

router = APIRouter(prefix="/api", tags=["products"])
router.include_router(lists.router)
router.include_router(transfer.router)
router.include_router(receipts.router)
router.include_router(products.router)
