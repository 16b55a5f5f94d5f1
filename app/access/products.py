"""Who may see and change a product (contract 4, 17.3): its owner, the members of the household it is shared
with (owners and members write, viewers read), and admins. The one place that says so; every product read
and write of the products routes starts here."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from sqlalchemy import Boolean, ColumnElement, Select, and_, bindparam, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.visitors import InternalTraversal

from app.access.households import WRITERS, role_in
from app.errors import Forbidden, NotFound
from app.models import HouseholdMember, Product, User
from app.models.enums import Role


class ProductAccess(StrEnum):
    """What a user may do with one product they can see."""

    OWN = "own"  # everything, deleting it and sharing it included
    WRITE = "write"  # edit it, its receipts, file and follow its claims (household owners and members)
    READ = "read"  # household viewers


class _InSubquery(ColumnElement[bool]):
    """`column IN (subquery)`, written `column = ANY(ARRAY(subquery))` on PostgreSQL: the array is read once
    (an InitPlan) and is an index condition, so `owner_id = :v OR household_id = ANY(...)` is two index
    scans; with IN, PostgreSQL walks every product newest first and tests each (120 ms for a user's first
    page among a million products, against under 1 ms). SQLite reads the IN list through the index alike."""

    type = Boolean()
    inherit_cache = True
    _is_implicitly_boolean = True  # a condition as it is (SQLite would otherwise compare it to 1)
    _traverse_internals = [
        ("column", InternalTraversal.dp_clauseelement),
        ("subquery", InternalTraversal.dp_clauseelement),
    ]

    def __init__(self, column: ColumnElement[Any], subquery: Select[Any]) -> None:
        self.column = column
        self.subquery = subquery


@compiles(_InSubquery)
def _in_subquery(element: _InSubquery, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.column.in_(element.subquery), **kw)


@compiles(_InSubquery, "postgresql")
def _any_array(element: _InSubquery, compiler: SQLCompiler, **kw: Any) -> str:
    column = compiler.process(element.column, **kw)
    return f"{column} = ANY(ARRAY{compiler.process(element.subquery.scalar_subquery(), **kw)})"


def sees_everything(user: User) -> bool:
    return Role.ADMIN in user.effective_roles


def shared_with(user_id: Any) -> ColumnElement[bool]:
    """Products shared with a household the user belongs to, in any role (`user_id` may be a bindparam)."""
    households = select(HouseholdMember.household_id).where(HouseholdMember.user_id == user_id)
    return _InSubquery(Product.__table__.c.household_id, households)


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


def viewer_sides() -> tuple[ColumnElement[bool], ColumnElement[bool]]:
    """`viewer_condition` as two disjoint sides, for lists that read each through its own index and merge
    them in order: the viewer's own products, and other people's shared with the viewer's households. As
    one OR, PostgreSQL may walk every product newest first looking for a user's few (450 ms for the first
    page of a user with old products among a million, against 0.4 ms)."""
    viewer: Any = bindparam("viewer_id")
    return Product.owner_id == viewer, and_(shared_with(viewer), Product.owner_id != viewer)


async def access_to(session: AsyncSession, user: User, product: Product) -> ProductAccess:
    """What `user`, who can see `product`, may do with it. Admins own it; others as `member_access`."""
    if sees_everything(user):
        return ProductAccess.OWN
    return await member_access(session, user, product)


async def member_access(session: AsyncSession, user: User, product: Product) -> ProductAccess:
    """What `user` may do with `product` as its owner or a member of its household, whatever their roles
    (one read of their household role, for anyone but the owner); 404 when neither."""
    if user.id == product.owner_id:
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


def check_owner(access: ProductAccess) -> None:
    """Deleting a product and sharing or unsharing it are its owner's (and admins') alone: 403 for the
    household members who see it."""
    if access != ProductAccess.OWN:
        raise Forbidden("Only the product's owner may do this.")


async def require_owner(session: AsyncSession, user: User, product: Product) -> None:
    check_owner(await access_to(session, user, product))


async def require_claimable(session: AsyncSession, user: User, product: Product) -> None:
    """Claims on a product are filed by its owner and its household's owners and members, as its customer
    (an admin files claims on their own products only, like anyone): 403 for a viewer, 404 for others."""
    if await member_access(session, user, product) == ProductAccess.READ:
        raise Forbidden("Viewers of a household may not file claims on its products.")


async def may_share_with(session: AsyncSession, owner_id: int, household_id: int) -> None:
    """A product is shared only with a household its owner belongs to: 404 otherwise (as for a missing
    one), also when an admin sets it."""
    if await role_in(session, owner_id, household_id) is None:
        raise NotFound("No such household.")
