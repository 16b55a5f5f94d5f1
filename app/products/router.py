"""Products: create, read, change and delete one product (spec 4.2, contract 4). Lists are in `lists`,
receipts in `receipts`."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from app.auth.dependencies import CurrentUser
from app.core.clock import utc_today
from app.core.deps import SettingsDep
from app.core.openapi import errors
from app.core.storage import StorageDep, delete_after_commit
from app.models import Product
from app.products import lists, receipts
from app.products.dependencies import VisibleProduct
from app.products.repository import ProductRepo
from app.products.schemas import (
    ProductClaim,
    ProductCreate,
    ProductDetail,
    ProductOut,
    ProductUpdate,
)

router = APIRouter(prefix="/api", tags=["products"])
router.include_router(lists.router)
router.include_router(receipts.router)


def _out(product: Product, has_active_claim: bool, settings: SettingsDep) -> ProductOut:
    return ProductOut.of(
        product,
        has_active_claim=has_active_claim,
        today=utc_today(),
        expiring_soon_days=settings.expiring_soon_days,
    )


@router.post(
    "/products", status_code=status.HTTP_201_CREATED, response_model=ProductOut, responses=errors(400, 401)
)
async def create_product(
    body: ProductCreate, response: Response, user: CurrentUser, products: ProductRepo, settings: SettingsDep
) -> ProductOut:
    """Register a product of the signed-in user. `warrantyExpiresAt` is the purchase date plus the
    period in calendar months (a day the month lacks becomes its last day); `warrantyStatus` is
    `active`, `expiring_soon` (within WARRANTY_EXPIRING_SOON_DAYS days) or `expired`."""
    product = await products.add(user, body.model_dump())
    response.headers["Location"] = f"/api/products/{product.id}"
    return _out(product, False, settings)


@router.get("/products/{id}", response_model=ProductDetail, responses=errors(401, 404))
async def get_product(
    visible: VisibleProduct,
    user: CurrentUser,
    products: ProductRepo,
    receipt_rows: receipts.ReceiptRepo,
    settings: SettingsDep,
) -> ProductDetail:
    """One product with its receipts and its claims (id, status, description, createdAt). Another
    user's product is a 404 (admins see every product)."""
    product = visible.product
    base = _out(product, visible.has_active_claim, settings)
    return ProductDetail(
        **base.model_dump(),
        receipts=[receipts.receipt_out(receipt) for receipt in await receipt_rows.of_product(product.id)],
        claims=[ProductClaim.model_validate(dict(row)) for row in await products.claims(user, product.id)],
    )


async def _update(
    body: ProductUpdate, visible: VisibleProduct, products: ProductRepo, settings: SettingsDep
) -> ProductOut:
    product = await products.update(visible.product, body.changes())
    return _out(product, visible.has_active_claim, settings)


@router.put("/products/{id}", response_model=ProductOut, responses=errors(400, 401, 404))
async def put_product(
    body: ProductUpdate, visible: VisibleProduct, products: ProductRepo, settings: SettingsDep
) -> ProductOut:
    """Change a product: any subset of the create fields, with the same rules; the fields left out keep
    their value (PUT and PATCH behave alike). A required field may not be set to null."""
    return await _update(body, visible, products, settings)


@router.patch("/products/{id}", response_model=ProductOut, responses=errors(400, 401, 404))
async def patch_product(
    body: ProductUpdate, visible: VisibleProduct, products: ProductRepo, settings: SettingsDep
) -> ProductOut:
    """Change a product; the same as `PUT /api/products/{id}`."""
    return await _update(body, visible, products, settings)


@router.delete("/products/{id}", status_code=status.HTTP_204_NO_CONTENT, responses=errors(401, 404))
async def delete_product(visible: VisibleProduct, products: ProductRepo, storage: StorageDep) -> None:
    """Delete a product with everything attached to it: receipts (and their files), claims, their
    messages and the messages' attachment files."""
    keys = await products.file_keys(visible.product.id)
    await products.delete(visible.product)
    delete_after_commit(products.session, storage, keys)
