"""Product lists: the caller's own (`GET /api/products`) and everyone's (`GET /api/admin/products`).
A fixed number of queries whatever the length (the active-claim flag is a subquery), and page-cached."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from app.auth.dependencies import AdminUser, CurrentUser
from app.core.cache import PageCacheDep
from app.core.clock import utc_today
from app.core.deps import SettingsDep
from app.core.openapi import errors
from app.core.pagination import Page, PageParams, Pagination, build_page
from app.errors import ValidationFailed
from app.models import User
from app.products.repository import (
    PRODUCTS_ALL,
    SORT_COLUMNS,
    ProductFilter,
    ProductRepo,
    ProductSort,
    products_of,
)
from app.products.schemas import ProductOut
from app.products.warranty import WarrantyStatus

router = APIRouter(tags=["products"])  # included by app.products.router under /api

ORDERS = ("asc", "desc")


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
    if field not in SORT_COLUMNS or direction not in ORDERS:
        raise ValidationFailed(
            f"sort must be one of {', '.join(SORT_COLUMNS)}; order asc or desc.",
            code="VALIDATION_INVALID_SORT",
            details={"allowedSort": list(SORT_COLUMNS), "allowedOrder": list(ORDERS)},
        )
    return ProductSort(field, direction)


Filter = Annotated[ProductFilter, Depends(product_filter)]
Sort = Annotated[ProductSort, Depends(product_sort)]


async def _list(
    endpoint: str,
    scopes: list[str],
    caller: User,
    where: ProductFilter,
    sort: ProductSort,
    params: PageParams,
    products: ProductRepo,
    cache: PageCacheDep,
    settings: SettingsDep,
) -> tuple[list[ProductOut], int | None]:
    """The products of one page (or all of them, when not paged) and the total (None when not paged)."""
    today, soon = utc_today(), settings.expiring_soon_days
    paged = params.requested or endpoint == "admin"
    # Statuses are computed for today: tomorrow's pages are other pages.
    key = ("products", endpoint, caller.id, paged, params.page, params.limit, where, sort, today)

    async def compute() -> tuple[list[ProductOut], int | None]:
        total = None
        if paged:
            total = await products.count(caller, where, today=today, expiring_soon_days=soon)
        rows = await products.page(
            caller,
            where,
            sort,
            today=today,
            expiring_soon_days=soon,
            offset=params.offset if paged else 0,
            limit=params.limit if paged else None,
        )
        items = [
            ProductOut.of(product, has_active_claim=active, today=today, expiring_soon_days=soon)
            for product, active in rows
        ]
        return items, total

    return await cache.get_or_compute(products.session, scopes, key, compute)


@router.get(
    "/products",
    response_model=list[ProductOut] | Page[ProductOut],
    responses=errors(400, 401),
)
async def list_products(
    request: Request,
    user: CurrentUser,
    params: Pagination,
    where: Filter,
    sort: Sort,
    products: ProductRepo,
    cache: PageCacheDep,
    settings: SettingsDep,
) -> Any:
    """The signed-in user's own products (also for admins; they see everyone's at
    `/api/admin/products`). A bare array of every match, or the paginated envelope when `page` or
    `limit` is in the query. Filters combine; `sort` ties are broken by id in the same order."""
    own = replace(where, owner_id=user.id)
    scopes = [products_of(user.id), f"claims:user:{user.id}"]
    items, total = await _list("own", scopes, user, own, sort, params, products, cache, settings)
    if total is None:
        return items
    return build_page(items, total, params, request)


@router.get("/admin/products", response_model=Page[ProductOut], responses=errors(400, 401, 403))
async def admin_list_products(
    request: Request,
    admin: AdminUser,
    params: Pagination,
    where: Filter,
    sort: Sort,
    products: ProductRepo,
    cache: PageCacheDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    """Every user's products (admin only), always in the paginated envelope; the same filters and sort
    as `GET /api/products`."""
    scopes = [PRODUCTS_ALL, "claims:all"]
    items, total = await _list("admin", scopes, admin, where, sort, params, products, cache, settings)
    return build_page(items, total or 0, params, request)
