"""The users API: the admin lists of users (`GET /api/users` with its own meta shape and
`GET /api/admin/users` in the paginated envelope; list columns only, a fixed number of queries,
page-cached), the caller's own account, accounts by id (admins), and profile pictures."""

from __future__ import annotations

import math
from typing import Annotated

from fastapi import APIRouter, File, Response, UploadFile, status

from app.api.dependencies import (
    AdminUser,
    CachedPages,
    CurrentUser,
    HasherDep,
    Pagination,
    SettingsDep,
    StorageDep,
)
from app.api.openapi import errors
from app.api.pagination import JsonList, KeyKind, Page, PageParams, list_json
from app.models import User
from app.pagecache.scopes import USERS_ALL
from app.storage.storage import streamed
from app.users import service
from app.users.dependencies import UserId, UserQuery, UserRepo, VisibleUser
from app.users.pictures import picture_key, picture_kind, replace_picture
from app.users.repository import UserFilter
from app.users.schemas import (
    PROFILE_PICTURE_PATH,
    AdminUserPatch,
    IdentityOut,
    MeOut,
    ProfilePictureOut,
    UserCreate,
    UserListItem,
    UserOut,
    UserPatch,
    UsersMeta,
    UsersPage,
)

router = APIRouter(prefix="/api", tags=["users"])
lists = APIRouter(tags=["users"])  # the two lists, included before the other routes

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


@lists.get("/users", response_model=UsersPage, responses=errors(400, 401, 403))
async def list_users(
    admin: AdminUser, params: Pagination, where: UserQuery, users: UserRepo, page: CachedPages
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


@lists.get("/admin/users", response_model=Page[UserListItem], responses=errors(400, 401, 403))
async def admin_list_users(
    admin: AdminUser, params: Pagination, where: UserQuery, users: UserRepo, page: CachedPages
) -> Response:
    """Every user, newest first (admin only), in the paginated envelope (`meta` snake_case, `links`);
    the same `search` and `role` filters as `GET /api/users`."""

    async def compute() -> bytes:
        items, count, total, next_cursor = await _page(where, params, users)
        return list_json(items, count, total, params, page.request, next_cursor)

    return await page.respond([USERS_ALL], compute)


router.include_router(lists)


@router.get("/me", response_model=MeOut, responses=errors(401))
async def get_me(user: CurrentUser, users: UserRepo) -> MeOut:
    """The signed-in user, with `identities`: the identity-provider accounts linked to it (18.3)."""
    me = MeOut.model_validate(user)
    me.identities = [IdentityOut.model_validate(link) for link in await users.identities(user.id)]
    return me


@router.patch("/me", response_model=UserOut, responses=errors(400, 401))
async def patch_me(body: UserPatch, user: CurrentUser, users: UserRepo) -> User:
    """Change the signed-in user's name, address and notification settings; only the fields sent change.
    Any other field (roles, email, ...) is a 400."""
    return await service.change_user(user, body.changes(), users=users)


@router.delete("/me", status_code=status.HTTP_204_NO_CONTENT, responses=errors(401, 409))
async def delete_me(user: CurrentUser, users: UserRepo, storage: StorageDep) -> None:
    """Delete the signed-in user's account: their products, receipts, claims (with messages and
    attachments), device tokens and sign-ins. 409 LAST_ADMIN for the only admin."""
    await service.delete_user(user, users=users, storage=storage)


@router.post(
    "/users",
    status_code=status.HTTP_201_CREATED,
    response_model=UserOut,
    responses=errors(400, 401, 403, 409),
)
async def create_user(
    body: UserCreate, response: Response, _admin: AdminUser, hasher: HasherDep, users: UserRepo
) -> User:
    """Create an account (admin only). `roles` defaults to ROLE_USER, which every account holds anyway.
    409 EMAIL_TAKEN when the email has an account."""
    user = await service.create_user(
        email=body.email,
        name=body.name,
        password_hash=await hasher.hash(body.password),
        roles=list(body.roles or []),
        users=users,
    )
    response.headers["Location"] = f"/api/users/{user.id}"
    return user


@router.get("/users/{user_id}", response_model=UserOut, responses=errors(400, 401, 403, 404))
async def get_user(user: VisibleUser) -> User:
    """One user: any user for an admin, else only the caller's own id (403)."""
    return user


@router.patch("/users/{user_id}", response_model=UserOut, responses=errors(400, 401, 403, 404, 409))
async def patch_user(body: AdminUserPatch, user_id: UserId, _admin: AdminUser, users: UserRepo) -> User:
    """Change a user (admin only); only the fields sent change, `roles` and `email` included (409
    EMAIL_TAKEN, 409 LAST_ADMIN when it would leave no admin). Anyone else gets 403, on their own id too:
    users change their own account with `PATCH /api/me`."""
    return await service.update_user(await service.get_or_404(users, user_id), body, users=users)


@router.delete(
    "/users/{user_id}", status_code=status.HTTP_204_NO_CONTENT, responses=errors(400, 401, 403, 404, 409)
)
async def delete_user(user_id: UserId, _admin: AdminUser, users: UserRepo, storage: StorageDep) -> None:
    """Delete an account and what goes with it, as `DELETE /api/me` (admin only). 409 LAST_ADMIN for the
    only admin."""
    user = await service.get_or_404(users, user_id)
    await service.delete_user(user, users=users, storage=storage)


@router.post("/user/profile-picture", response_model=ProfilePictureOut, responses=errors(400, 401, 413, 415))
async def upload_profile_picture(
    file: Annotated[UploadFile, File(description="A jpg, png, gif or webp image.")],
    user: CurrentUser,
    users: UserRepo,
    storage: StorageDep,
    settings: SettingsDep,
) -> ProfilePictureOut:
    """Set the signed-in user's profile picture (multipart field `file`). The bytes decide the type: a
    name or part type that says otherwise is a 415; over the size or pixel limit a 413. The previous
    picture is deleted."""
    filename = await replace_picture(users.session, storage, settings, user, file)
    return ProfilePictureOut(profile_picture=f"{PROFILE_PICTURE_PATH}{filename}")


@router.get(
    "/user/profile-picture/{filename}",
    response_class=Response,
    responses={200: {"content": {"image/png": {}, "image/jpeg": {}}}, **errors(401, 404)},
)
async def get_profile_picture(filename: str, _user: CurrentUser, storage: StorageDep) -> Response:
    """A profile picture's bytes (any signed-in user). Names never change content, so it may be cached."""
    kind = picture_kind(filename)
    download = await storage.open(picture_key(filename))
    return streamed(
        download,
        kind.mime_type,
        {
            "X-Content-Type-Options": "nosniff",
            "Content-Disposition": f'inline; filename="{filename}"',
            "Cache-Control": "private, max-age=86400",
        },
    )
