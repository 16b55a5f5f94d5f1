"""The users routes' own request dependencies: the repository, the user a path names, the list's filter.
Only route modules import it (the auth routes read accounts through `UserRepo` too)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Query

from app.api.dependencies import CurrentUser, repository
from app.core.ids import DIGITS_ONLY, MAX_ID
from app.errors import Forbidden
from app.models import User
from app.models.enums import Role
from app.users.repository import UserFilter, UserRepository
from app.users.schemas import RoleName
from app.users.service import get_or_404

UserRepo = Annotated[UserRepository, Depends(repository(UserRepository))]

UserId = Annotated[int, Path(ge=1, le=MAX_ID, description="The user's id."), DIGITS_ONLY]


async def visible_user(user_id: UserId, caller: CurrentUser, users: UserRepo) -> User:
    """The user at /api/users/{id}: an admin gets anyone (404 when there is none); anyone else only
    themselves (403 for other ids, whether or not they exist)."""
    if caller.id == user_id:
        return caller
    if Role.ADMIN not in caller.effective_roles:
        raise Forbidden("You may only see your own account.")
    return await get_or_404(users, user_id)


VisibleUser = Annotated[User, Depends(visible_user)]


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


UserQuery = Annotated[UserFilter, Depends(user_filter)]
