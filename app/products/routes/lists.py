"""Product lists: the caller's (`GET /api/products`: their own and those shared with their households) and
everyone's (`GET /api/admin/products`).
A fixed number of queries whatever the length (the active-claim flag is a subquery), and page-cached."""

from __future__ import annotations

from fastapi import APIRouter, Response

from app.api.dependencies import AdminUser, CachedPages, CurrentUser, Pagination, SettingsDep
from app.api.openapi import errors
from app.api.pagination import JsonList, Page, PageParams, list_json
from app.core.clock import utc_today
from app.pagecache.scopes import CLAIMS_ALL, PRODUCTS_ALL, claims_of, products_of
from app.products import extensions
from app.products.dependencies import ProductOrder, ProductQuery, ProductRepo, ViewerQuery
from app.products.repository import SORT_KEY_KINDS, ProductFilter, ProductSort
from app.products.schemas import ProductOut

router = APIRouter(tags=["products"])  # included by app.products.routes under /api


PRODUCTS_JSON = JsonList(ProductOut)


async def _list(
    endpoint: str,
    scopes: list[str],
    where: ProductFilter,
    sort: ProductSort,
    params: PageParams,
    products: ProductRepo,
    page: CachedPages,
    settings: SettingsDep,
) -> Response:
    """The products of one page (or all of them, when not paged), through the page cache."""
    today, soon = utc_today(), settings.expiring_soon_days
    paged = params.requested or endpoint == "admin"

    async def compute() -> bytes:
        total, next_cursor = None, None
        if paged:
            total = await products.count(page.user, where, today=today, expiring_soon_days=soon)
        rows = await products.page(
            page.user,
            where,
            sort,
            today=today,
            expiring_soon_days=soon,
            offset=params.offset if paged else 0,
            limit=params.fetch if paged else None,
            after=params.after_key(SORT_KEY_KINDS[sort.field]),
        )
        if paged:
            rows, next_cursor = params.window(rows, lambda row: (row.sort_key, row.id))
        extended = await extensions.of_products(products.session, (row.id for row in rows))
        items = [
            ProductOut.of(
                row,
                owner_name=row.owner_name,
                has_active_claim=row.has_active_claim,
                today=today,
                expiring_soon_days=soon,
                extensions=extended[row.id],
            )
            for row in rows
        ]
        return list_json(PRODUCTS_JSON(items), len(items), total, params, page.request, next_cursor)

    return await page.respond(scopes, compute)


@router.get(
    "/products",
    response_model=list[ProductOut] | Page[ProductOut],
    responses=errors(400, 401),
)
async def list_products(
    user: CurrentUser,
    params: Pagination,
    where: ViewerQuery,
    sort: ProductOrder,
    products: ProductRepo,
    page: CachedPages,
    settings: SettingsDep,
) -> Response:
    """The signed-in user's own products and those shared with their households (also for admins; they
    see everyone's at `/api/admin/products`); `owner=me` keeps their own, `householdId` one household's.
    A bare array of every match, or the paginated envelope when `page` or `limit` is in the query. Filters
    combine; `sort` ties are broken by id in the same order."""
    # A change to a shared product invalidates each member's products_of scope (app.changes.build).
    scopes = [products_of(user.id), claims_of(user.id)]
    return await _list("own", scopes, where, sort, params, products, page, settings)


@router.get("/admin/products", response_model=Page[ProductOut], responses=errors(400, 401, 403))
async def admin_list_products(
    admin: AdminUser,
    params: Pagination,
    where: ProductQuery,
    sort: ProductOrder,
    products: ProductRepo,
    page: CachedPages,
    settings: SettingsDep,
) -> Response:
    """Every user's products (admin only), always in the paginated envelope; the same filters and sort
    as `GET /api/products`."""
    return await _list("admin", [PRODUCTS_ALL, CLAIMS_ALL], where, sort, params, products, page, settings)
