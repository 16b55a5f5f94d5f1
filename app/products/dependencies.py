"""The products routes' own request dependencies: the repositories, the product and receipt a path names
(404 alike for missing and not yours), the list's filter and order. Only route modules import it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Path, Query

from app.api.dependencies import CurrentUser, repository
from app.core.ids import DIGITS_ONLY
from app.errors import NotFound, ValidationFailed
from app.models import Product, Receipt
from app.products.receipt_records import ReceiptRepository
from app.products.repository import SORT_COLUMNS, ProductFilter, ProductRepository, ProductSort
from app.products.warranty import WarrantyStatus

SORT_ORDERS = ("asc", "desc")

ProductRepo = Annotated[ProductRepository, Depends(repository(ProductRepository))]
ReceiptRepo = Annotated[ReceiptRepository, Depends(repository(ReceiptRepository))]


@dataclass
class Visible:
    product: Product
    has_active_claim: bool


async def visible_product(
    product_id: Annotated[int, Path(alias="id", description="The product's id."), DIGITS_ONLY],
    user: CurrentUser,
    products: ProductRepo,
) -> Visible:
    found = await products.get_visible(user, product_id)
    if found is None:
        raise NotFound("No such product.")
    return Visible(*found)


VisibleProduct = Annotated[Visible, Depends(visible_product)]


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


async def product_filter(
    brand: Annotated[str | None, Query(max_length=100, description="Exactly this brand, any case.")] = None,
    category: Annotated[
        str | None, Query(max_length=100, description="Exactly this category, any case.")
    ] = None,
    warranty_status: Annotated[
        WarrantyStatus | None, Query(alias="warrantyStatus", description="The status today.")
    ] = None,
    search: Annotated[
        str | None, Query(max_length=255, description="Part of the name, brand or serial number, any case.")
    ] = None,
) -> ProductFilter:
    def clean(value: str | None) -> str | None:
        return (value or "").strip() or None  # blank means no filter

    return ProductFilter(
        brand=clean(brand), category=clean(category), warranty_status=warranty_status, search=clean(search)
    )


async def product_sort(
    sort: Annotated[
        str | None, Query(description="name, brand, purchaseDate, warrantyExpiresAt or createdAt (default).")
    ] = None,
    order: Annotated[str | None, Query(description="asc or desc (default).")] = None,
) -> ProductSort:
    field = "createdAt" if sort is None else sort.strip()
    direction = "desc" if order is None else order.strip().lower()
    if field not in SORT_COLUMNS or direction not in SORT_ORDERS:
        raise ValidationFailed(
            f"sort must be one of {', '.join(SORT_COLUMNS)}; order asc or desc.",
            code="VALIDATION_INVALID_SORT",
            details={"allowedSort": list(SORT_COLUMNS), "allowedOrder": list(SORT_ORDERS)},
        )
    return ProductSort(field, direction)


ProductQuery = Annotated[ProductFilter, Depends(product_filter)]
ProductOrder = Annotated[ProductSort, Depends(product_sort)]
