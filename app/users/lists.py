"""The admin lists of users: `GET /api/users` (spec 4.5 meta) and `GET /api/admin/users` (spec 8.1
envelope). Both select only the list columns, run a fixed number of queries, and are page-cached."""

from __future__ import annotations

import math
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response

from app.auth.dependencies import AdminUser
from app.core.cached_pages import CachedPages
from app.core.openapi import errors
from app.core.pagination import JsonList, KeyKind, Page, PageParams, Pagination, list_json
from app.core.scopes import USERS_ALL
from app.users.repository import UserFilter, UserRepo
from app.users.schemas import RoleName, UserListItem, UsersMeta, UsersPage

router = APIRouter(tags=["users"])  # included by app.users.router under /api


async def user_filter(
    search: Annotated[
        str | None, Query(max_length=255, description="Part of the name or email, any case.")
    ] = None,
    role: Annotated[
        RoleName | None,
        Query(description="Users whose `roles` list holds this role (as stored, not by hierarchy)."),
    ] = None,
) -> UserFilter:
    return UserFilter(search=(search or "").strip() or None, role=role)


Filter = Annotated[UserFilter, Depends(user_filter)]


USERS_JSON = JsonList(UserListItem)


# The lists' cursor key: (created_at, id).
LIST_KEY: tuple[KeyKind, KeyKind] = ("datetime", "int")


async def _page(where: UserFilter, params: PageParams, users: UserRepo) -> tuple[bytes, int, int, str | None]:
    """The page's users as a JSON array, how many, the total, and the next page's cursor."""
    after = params.after_key(LIST_KEY)
    found, total = await users.list_page(where, offset=params.offset, limit=params.fetch, after=after)
    rows, next_cursor = params.window(found, lambda row: (row["created_at"], row["id"]))
    items = [UserListItem.model_validate(dict(row)) for row in rows]
    return USERS_JSON(items), len(items), total, next_cursor


@router.get("/users", response_model=UsersPage, responses=errors(400, 401, 403))
async def list_users(
    admin: AdminUser, params: Pagination, where: Filter, users: UserRepo, page: CachedPages
) -> Response:
    """Every user, newest first (admin only). `search` matches the name or the email (any case); `role`
    keeps users holding that role. Always paged: `meta` has currentPage, totalPages, totalItems,
    itemsPerPage (the limit after lowering to the role maximum)."""

    async def compute() -> bytes:
        items, _, total, next_cursor = await _page(where, params, users)
        meta = UsersMeta(
            current_page=None if params.by_cursor else params.page,
            next_cursor=next_cursor,
            total_pages=max(1, math.ceil(total / params.limit)),
            total_items=total,
            items_per_page=params.limit,
        )
        return b'{"data":' + items + b',"meta":' + meta.model_dump_json(by_alias=True).encode() + b"}"

    return await page.respond([USERS_ALL], compute)


@router.get("/admin/users", response_model=Page[UserListItem], responses=errors(400, 401, 403))
async def admin_list_users(
    admin: AdminUser, params: Pagination, where: Filter, users: UserRepo, page: CachedPages
) -> Response:
    """Every user, newest first (admin only), in the paginated envelope (`meta` snake_case, `links`);
    the same `search` and `role` filters as `GET /api/users`."""

    async def compute() -> bytes:
        items, count, total, next_cursor = await _page(where, params, users)
        return list_json(items, count, total, params, page.request, next_cursor)

    return await page.respond([USERS_ALL], compute)
