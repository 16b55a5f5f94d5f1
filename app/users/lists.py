"""The admin lists of users: `GET /api/users` (spec 4.5 meta) and `GET /api/admin/users` (spec 8.1
envelope). Both select only the list columns, run a fixed number of queries, and are page-cached."""

from __future__ import annotations

import math
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from app.auth.dependencies import AdminUser
from app.core.cache import PageCacheDep
from app.core.openapi import errors
from app.core.pagination import Page, PageParams, Pagination, build_page
from app.users.repository import USERS_SCOPE, UserFilter, UserRepo
from app.users.schemas import Role, UserListItem, UsersPage

router = APIRouter(tags=["users"])  # included by app.users.router under /api


async def user_filter(
    search: Annotated[
        str | None, Query(max_length=255, description="Part of the name or email, any case.")
    ] = None,
    role: Annotated[
        Role | None,
        Query(description="Users whose `roles` list holds this role (as stored, not by hierarchy)."),
    ] = None,
) -> UserFilter:
    return UserFilter(search=(search or "").strip() or None, role=role)


Filter = Annotated[UserFilter, Depends(user_filter)]


async def _page(
    endpoint: str, caller_id: int, where: UserFilter, params: PageParams, users: UserRepo, cache: PageCacheDep
) -> tuple[list[UserListItem], int]:
    key = ("users", endpoint, caller_id, params.page, params.limit, where.search, where.role)

    async def compute() -> tuple[list[UserListItem], int]:
        rows, total = await users.list_page(where, offset=params.offset, limit=params.limit)
        return [UserListItem.model_validate(dict(row)) for row in rows], total

    return await cache.get_or_compute(users.session, [USERS_SCOPE], key, compute)


@router.get("/users", response_model=UsersPage, responses=errors(400, 401, 403))
async def list_users(
    admin: AdminUser, params: Pagination, where: Filter, users: UserRepo, cache: PageCacheDep
) -> dict[str, Any]:
    """Every user, newest first (admin only). `search` matches the name or the email (any case); `role`
    keeps users holding that role. Always paged: `meta` has currentPage, totalPages, totalItems,
    itemsPerPage (the limit after lowering to the role maximum)."""
    items, total = await _page("users", admin.id, where, params, users, cache)
    return {
        "data": items,
        "meta": {
            "current_page": params.page,
            "total_pages": max(1, math.ceil(total / params.limit)),
            "total_items": total,
            "items_per_page": params.limit,
        },
    }


@router.get("/admin/users", response_model=Page[UserListItem], responses=errors(400, 401, 403))
async def admin_list_users(
    request: Request,
    admin: AdminUser,
    params: Pagination,
    where: Filter,
    users: UserRepo,
    cache: PageCacheDep,
) -> dict[str, Any]:
    """Every user, newest first (admin only), in the paginated envelope (`meta` snake_case, `links`);
    the same `search` and `role` filters as `GET /api/users`."""
    items, total = await _page("admin/users", admin.id, where, params, users, cache)
    return build_page(items, total, params, request)
