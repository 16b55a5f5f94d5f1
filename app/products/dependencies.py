"""The products routes' own request dependencies: the repositories, the product and receipt a path names
(404 alike for missing and not visible, 403 for a write the caller may not make: app.access.products), the
list's filter and order. Only route modules import it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated, Literal

from fastapi import Depends, Path, Query

from app.access.products import ProductAccess, require_owner, require_write
from app.api.dependencies import CurrentUser, repository
from app.core.ids import DIGITS_ONLY, MAX_ID
from app.errors import NotFound, ValidationFailed
from app.models import Receipt
from app.products.receipt_records import ReceiptRepository
from app.products.repository import SORT_COLUMNS, Found, ProductFilter, ProductRepository, ProductSort
from app.products.warranty import WarrantyStatus

SORT_ORDERS = ("asc", "desc")

ProductRepo = Annotated[ProductRepository, Depends(repository(ProductRepository))]
ReceiptRepo = Annotated[ReceiptRepository, Depends(repository(ReceiptRepository))]


async def visible_product(
    product_id: Annotated[int, Path(alias="id", description="The product's id."), DIGITS_ONLY],
    user: CurrentUser,
    products: ProductRepo,
) -> Found:
    found = await products.get_visible(user, product_id)
    if found is None:
        raise NotFound("No such product.")
    return found


VisibleProduct = Annotated[Found, Depends(visible_product)]


@dataclass(frozen=True)
class Writable(Found):
    """A product the caller may change, and how far: its owner (and admins) own it, household owners and
    members write to it."""

    access: ProductAccess = ProductAccess.OWN


async def writable_product(visible: VisibleProduct, user: CurrentUser, products: ProductRepo) -> Writable:
    """403 for a household viewer (they see the product), as for every write."""
    access = await require_write(products.session, user, visible.product)
    return Writable(visible.product, visible.has_active_claim, visible.owner_name, access)


async def owned_product(visible: VisibleProduct, user: CurrentUser, products: ProductRepo) -> Found:
    """403 for the household members who see it: deleting a product is its owner's (and admins')."""
    await require_owner(products.session, user, visible.product)
    return visible


WritableProduct = Annotated[Writable, Depends(writable_product)]
OwnedProduct = Annotated[Found, Depends(owned_product)]


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


async def viewer_filter(
    user: CurrentUser,
    where: ProductQuery,
    owner: Annotated[
        Literal["me"] | None,
        Query(
            description="`me`: only the caller's own products, not those shared with them.", examples=["me"]
        ),
    ] = None,
    household_id: Annotated[
        int | None,
        Query(
            alias="householdId",
            ge=1,
            le=MAX_ID,
            description="Only the products shared with this household (of those the caller sees).",
            examples=[3],
        ),
        DIGITS_ONLY,
    ] = None,
) -> ProductFilter:
    """The filter of the caller's list and export: what they see (their own products and those shared with
    their households), narrowed by `owner=me` and `householdId`."""
    return replace(where, viewer_id=user.id, own_only=owner == "me", household_id=household_id)


ViewerQuery = Annotated[ProductFilter, Depends(viewer_filter)]
