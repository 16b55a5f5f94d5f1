"""Products: create, read, change and delete one product (docs/api.md §5). Lists, receipts and CSV
are the other modules of app.products.routes."""

from __future__ import annotations

from fastapi import APIRouter, Response, status
from starlette.convertors import StringConvertor, register_url_convertor

from app.api.dependencies import CurrentUser, SettingsDep, StorageDep
from app.api.openapi import errors
from app.core.clock import utc_today
from app.models import Product
from app.products import extensions, service
from app.products.dependencies import OwnedProduct, ProductRepo, ReceiptRepo, VisibleProduct, WritableProduct
from app.products.receipt_records import receipt_out
from app.products.repository import Found
from app.products.schemas import (
    ProductClaim,
    ProductCreate,
    ProductDetail,
    ProductOut,
    ProductUpdate,
    WarrantyVoid,
)
from app.storage.storage import delete_after_commit


class ProductIdSegment(StringConvertor):
    """A `{id}` segment of /products/{id}: any text (a non-integer is a 400, like every path id) except
    the sibling resources `export.csv` and `import`, so that PUT /products/export.csv is a 405 naming GET
    in `Allow`, not a 400 for a product id "export.csv"."""

    regex = "(?!(?:export\\.csv|import)$)[^/]+"


register_url_convertor("product_id", ProductIdSegment())

router = APIRouter()  # included by app.products.routes under /api, last (its tag is the parent's)


async def _out(found: Found, product: Product, settings: SettingsDep, products: ProductRepo) -> ProductOut:
    """`product` (`found`'s, as a write left it) as answered."""
    extended = await extensions.of_products(products.session, [product.id])
    return ProductOut.of(
        product,
        owner_name=found.owner_name,
        has_active_claim=found.has_active_claim,
        today=utc_today(),
        expiring_soon_days=settings.expiring_soon_days,
        extensions=extended[product.id],
    )


@router.post(
    "/products",
    status_code=status.HTTP_201_CREATED,
    response_model=ProductOut,
    responses=errors(400, 401, 404),
)
async def create_product(
    body: ProductCreate, response: Response, user: CurrentUser, products: ProductRepo, settings: SettingsDep
) -> ProductOut:
    """Register a product of the signed-in user. `warrantyExpiresAt` is the purchase date plus the
    period in calendar months (a day the month lacks becomes its last day), or `warrantyEndsOn` when
    that is given instead (exactly one of the two, else 400); `warrantyStatus` is `active`,
    `expiring_soon` (within WARRANTY_EXPIRING_SOON_DAYS days), `expired` or `void`. `householdId` shares
    it with one of the caller's households (another household: 404)."""
    product = await service.create(user, body, products=products)
    response.headers["Location"] = f"/api/products/{product.id}"
    return ProductOut.of(
        product,
        owner_name=user.name,
        has_active_claim=False,
        today=utc_today(),
        expiring_soon_days=settings.expiring_soon_days,
    )


@router.get("/products/{id:product_id}", response_model=ProductDetail, responses=errors(401, 404))
async def get_product(
    visible: VisibleProduct,
    user: CurrentUser,
    products: ProductRepo,
    receipt_rows: ReceiptRepo,
    settings: SettingsDep,
) -> ProductDetail:
    """One product with its receipts and its claims (id, status, description, createdAt). Its owner, the
    members of the household it is shared with and admins see it; anyone else gets a 404."""
    product = visible.product
    base = await _out(visible, product, settings, products)
    return ProductDetail(
        **base.model_dump(),
        receipts=[receipt_out(receipt) for receipt in await receipt_rows.of_product(product.id)],
        claims=[ProductClaim.model_validate(dict(row)) for row in await products.claims(user, product.id)],
    )


async def _update(
    body: ProductUpdate, writable: WritableProduct, products: ProductRepo, settings: SettingsDep
) -> ProductOut:
    product = await service.update(writable.product, body, writable.access, products=products)
    return await _out(writable, product, settings, products)


@router.put("/products/{id:product_id}", response_model=ProductOut, responses=errors(400, 401, 403, 404))
async def put_product(
    body: ProductUpdate, writable: WritableProduct, products: ProductRepo, settings: SettingsDep
) -> ProductOut:
    """Change a product: any subset of the create fields, with the same rules; the fields left out keep
    their value (PUT and PATCH behave alike). A required field may not be set to null. Sending
    `warrantyPeriodMonths` or `warrantyEndsOn` switches the warranty to it; the other becomes null.
    Household owners and members may change a shared product (viewers: 403); a new `householdId` (null
    unshares) is the product owner's alone (403 for members; 404 for a household the owner is not in)."""
    return await _update(body, writable, products, settings)


@router.patch("/products/{id:product_id}", response_model=ProductOut, responses=errors(400, 401, 403, 404))
async def patch_product(
    body: ProductUpdate, writable: WritableProduct, products: ProductRepo, settings: SettingsDep
) -> ProductOut:
    """Change a product; the same as `PUT /api/products/{id}`."""
    return await _update(body, writable, products, settings)


@router.delete(
    "/products/{id:product_id}", status_code=status.HTTP_204_NO_CONTENT, responses=errors(401, 403, 404)
)
async def delete_product(owned: OwnedProduct, products: ProductRepo, storage: StorageDep) -> None:
    """Delete a product with everything attached to it: receipts (and their files), claims, their
    messages and the messages' attachment files. Its owner's (and admins') alone: 403 for the members of
    the household it is shared with."""
    keys = await products.file_keys(owned.product.id)
    await service.delete(owned.product, products=products)
    delete_after_commit(products.session, storage, keys)


@router.post("/products/{id}/warranty/void", response_model=ProductOut, responses=errors(400, 401, 403, 404))
async def void_warranty(
    body: WarrantyVoid, writable: WritableProduct, products: ProductRepo, settings: SettingsDep
) -> ProductOut:
    """Void the product's warranty (its owner, its household's owners and members, or an admin; viewers:
    403), with a reason: `warrantyStatus` is `void` (and the list filter `warrantyStatus=void` finds it)
    and no expiry alert is sent until it is unvoided. Voiding again replaces the reason and keeps
    `warrantyVoidedAt`."""
    product = await service.void(writable.product, body.reason, products=products)
    return await _out(writable, product, settings, products)


@router.post("/products/{id}/warranty/unvoid", response_model=ProductOut, responses=errors(401, 403, 404))
async def unvoid_warranty(
    writable: WritableProduct, products: ProductRepo, settings: SettingsDep
) -> ProductOut:
    """Undo a void: the status follows the dates again. A warranty that is not voided stays as it is."""
    product = await service.unvoid(writable.product, products=products)
    return await _out(writable, product, settings, products)
