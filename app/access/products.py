"""Who may see and change a product (contract 4, 17.3): its owner, the members of the household it is shared
with (owners and members write, viewers read), and admins. The one place that says so; every product read
and write of the products routes starts here."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from sqlalchemy import ColumnElement, Select, bindparam, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.households import WRITERS, role_in
from app.errors import Forbidden, NotFound
from app.models import HouseholdMember, Product, User
from app.models.enums import Role


class ProductAccess(StrEnum):
    """What a user may do with one product they can see."""

    OWN = "own"  # everything, deleting it and sharing it included
    WRITE = "write"  # edit it, its receipts, file and follow its claims (household owners and members)
    READ = "read"  # household viewers


def sees_everything(user: User) -> bool:
    return Role.ADMIN in user.effective_roles


def shared_with(user_id: Any) -> ColumnElement[bool]:
    """Products shared with a household the user belongs to, in any role (`user_id` may be a bindparam)."""
    return Product.household_id.in_(
        select(HouseholdMember.household_id).where(HouseholdMember.user_id == user_id)
    )


def visible_to_member(user_id: Any) -> ColumnElement[bool]:
    """The products a non-admin sees: their own and the ones shared with their households."""
    return or_(Product.owner_id == user_id, shared_with(user_id))


def visible_products(user: User) -> Select[Product]:
    """The products `user` may see (every product, for an admin)."""
    statement = select(Product)
    return statement if sees_everything(user) else statement.where(visible_to_member(user.id))


def viewer_condition() -> ColumnElement[bool]:
    """`visible_to_member` on the bound parameter `viewer_id`, for statements built once and reused."""
    return visible_to_member(bindparam("viewer_id"))


async def access_to(session: AsyncSession, user: User, product: Product) -> ProductAccess:
    """What `user`, who can see `product`, may do with it. Its owner and admins own it; others are
    household members (one read of their role)."""
    if user.id == product.owner_id or sees_everything(user):
        return ProductAccess.OWN
    role = None if product.household_id is None else await role_in(session, user.id, product.household_id)
    if role is None:
        raise NotFound("No such product.")
    return ProductAccess.WRITE if role in WRITERS else ProductAccess.READ


async def require_write(session: AsyncSession, user: User, product: Product) -> ProductAccess:
    """403 for a household viewer: they see the product but may not change it."""
    access = await access_to(session, user, product)
    if access == ProductAccess.READ:
        raise Forbidden("Viewers of a household may only read its products.")
    return access


async def require_owner(session: AsyncSession, user: User, product: Product) -> None:
    """Deleting a product and sharing or unsharing it are its owner's (and admins') alone: 403 for the
    household members who see it."""
    if await access_to(session, user, product) != ProductAccess.OWN:
        raise Forbidden("Only the product's owner may do this.")


async def may_share_with(session: AsyncSession, user: User, household_id: int) -> None:
    """An owner shares only with a household they belong to: 404 otherwise (as for a missing one)."""
    if await role_in(session, user.id, household_id) is None:
        raise NotFound("No such household.")
