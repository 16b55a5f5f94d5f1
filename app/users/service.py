"""The rules of creating, changing and deleting accounts: the last admin stays, a deleted account takes its
data (and files) with it. Each change is recorded here (app.changes), in its transaction."""

from __future__ import annotations

from typing import Any

from app.changes.dispatch import record
from app.changes.events import UserChanged, UserDeleted
from app.derived import read_state
from app.errors import Conflict, NotFound
from app.households import service as households_service
from app.households.repository import HouseholdRepository
from app.models import User
from app.models.enums import Role
from app.storage.storage import Storage, delete_after_commit
from app.users.pictures import picture_key
from app.users.repository import UserRepository
from app.users.schemas import AdminUserPatch


async def get_or_404(users: UserRepository, user_id: int) -> User:
    user = await users.get(user_id)
    if user is None:
        raise NotFound("No such user.")
    return user


def last_admin() -> Conflict:
    return Conflict("This is the last admin account; make another user admin first.", code="LAST_ADMIN")


async def ensure_not_last_admin(users: UserRepository, user: User) -> None:
    """409 LAST_ADMIN when `user` is the only admin left."""
    if user.is_admin and set(await users.admin_ids_locked()) <= {user.id}:
        raise last_admin()


async def create_user(
    *, email: str, name: str, password_hash: str, roles: list[str] | None = None, users: UserRepository
) -> User:
    """A new account; a taken email is a 409."""
    user = await users.add(email=email, name=name, password_hash=password_hash, roles=roles)
    await record(users.session, UserChanged(user.id))
    return user


async def change_user(user: User, changes: dict[str, Any], *, users: UserRepository) -> User:
    """Apply `changes` (attribute -> value); a taken email is a 409."""
    user = await users.update(user, changes)
    await record(users.session, UserChanged(user.id))
    return user


async def update_user(target: User, body: AdminUserPatch, *, users: UserRepository) -> User:
    """Apply an admin's PATCH; a change of roles never leaves the service without an admin."""
    changes: dict[str, Any] = body.changes()
    if "roles" in changes and Role.ADMIN not in changes["roles"]:
        await ensure_not_last_admin(users, target)
    return await change_user(target, changes, users=users)


async def delete_user(user: User, *, users: UserRepository, storage: Storage) -> None:
    """Delete the account with everything docs/api.md §4 lists; its files go once the deletion commits.
    Claims it supplies keep going without a supplier; its messages in other people's claims stay; the
    households it alone owns pass to another member (app.households.service.hand_over)."""
    await ensure_not_last_admin(users, user)
    keys = await users.owned_file_keys(user.id)
    if user.profile_picture:
        keys.append(picture_key(user.profile_picture))
    supplied = await users.supplied_claims(user.id)
    await households_service.hand_over(user, households=HouseholdRepository(users.session))
    await users.delete(user)
    # The claims they supplied have no supplier now: their reads no longer count as a recipient's.
    await read_state.recompute(users.session, supplied)
    await record(users.session, UserDeleted(user.id))
    delete_after_commit(users.session, storage, keys)
