from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, File, Path, Response, UploadFile, status

from app.auth.dependencies import AdminUser, CurrentUser
from app.core.deps import HasherDep, SettingsDep
from app.core.ids import DIGITS_ONLY, MAX_ID
from app.core.openapi import errors
from app.core.storage import StorageDep, streamed
from app.errors import Forbidden, NotFound
from app.models import User
from app.users import lists, service
from app.users.pictures import picture_key, picture_kind, replace_picture
from app.users.repository import UserRepo
from app.users.roles import Role
from app.users.schemas import (
    PROFILE_PICTURE_PATH,
    AdminUserPatch,
    ProfilePictureOut,
    UserCreate,
    UserOut,
    UserPatch,
)

router = APIRouter(prefix="/api", tags=["users"])
router.include_router(lists.router)

UserId = Annotated[int, Path(ge=1, le=MAX_ID, description="The user's id."), DIGITS_ONLY]


async def visible_user(user_id: UserId, caller: CurrentUser, users: UserRepo) -> User:
    """The user at /api/users/{id}: an admin gets anyone (404 when there is none); anyone else only
    themselves (403 for other ids, whether or not they exist)."""
    if caller.id == user_id:
        return caller
    if Role.ADMIN not in caller.effective_roles:
        raise Forbidden("You may only see your own account.")
    return await _get_or_404(users, user_id)


async def _get_or_404(users: UserRepo, user_id: int) -> User:
    user = await users.get(user_id)
    if user is None:
        raise NotFound("No such user.")
    return user


VisibleUser = Annotated[User, Depends(visible_user)]


@router.get("/me", response_model=UserOut, responses=errors(401))
async def get_me(user: CurrentUser) -> User:
    """The signed-in user."""
    return user


@router.patch("/me", response_model=UserOut, responses=errors(400, 401))
async def patch_me(body: UserPatch, user: CurrentUser, users: UserRepo) -> User:
    """Change the signed-in user's name, address and notification settings; only the fields sent change.
    Any other field (roles, email, ...) is a 400."""
    return await users.update(user, body.changes())


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
    user = await users.add(
        email=body.email,
        name=body.name,
        password_hash=await hasher.hash(body.password),
        roles=list(body.roles or []),
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
    return await service.update_user(await _get_or_404(users, user_id), body, users=users)


@router.delete(
    "/users/{user_id}", status_code=status.HTTP_204_NO_CONTENT, responses=errors(400, 401, 403, 404, 409)
)
async def delete_user(user_id: UserId, _admin: AdminUser, users: UserRepo, storage: StorageDep) -> None:
    """Delete an account and what goes with it, as `DELETE /api/me` (admin only). 409 LAST_ADMIN for the
    only admin."""
    user = await _get_or_404(users, user_id)
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
