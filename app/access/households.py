"""Who belongs to a household, and as what (contract 17.1): the one place that reads memberships for access.
A household is seen by its members only (404 alike for a missing household and one of other people);
owners manage it; owners and members write to its shared products and claims; viewers read."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.driver_reads import DriverRead
from app.core.ids import MAX_ID
from app.errors import Forbidden, NotFound
from app.models import HouseholdMember, Product
from app.models.enums import HouseholdRole

WRITERS = frozenset({HouseholdRole.OWNER, HouseholdRole.MEMBER})

# Every household route starts here: on the driver's connection (app.core.driver_reads).
_ROLE: DriverRead[Any] = DriverRead(
    select(HouseholdMember.role).where(
        HouseholdMember.household_id == bindparam("household_id"),
        HouseholdMember.user_id == bindparam("user_id"),
    )
)


def household_ids_of(user_id: int) -> Select[Any]:
    """The ids of the households `user_id` belongs to, in any role (a subquery for access statements)."""
    return select(HouseholdMember.household_id).where(HouseholdMember.user_id == user_id)


def not_found() -> NotFound:
    return NotFound("No such household.")


async def role_in(session: AsyncSession, user_id: int, household_id: int) -> HouseholdRole | None:
    """The user's role in the household, or None when they are not a member (or it does not exist)."""
    if not 1 <= household_id <= MAX_ID:
        return None
    rows = await _ROLE.all(session, household_id=household_id, user_id=user_id)
    return HouseholdRole(rows[0].role) if rows else None


async def require_role(
    session: AsyncSession, user_id: int, household_id: int, *allowed: HouseholdRole
) -> HouseholdRole:
    """The user's role, if they are a member (404 otherwise) holding one of `allowed` (403 otherwise; no
    `allowed`: any role)."""
    role = await role_in(session, user_id, household_id)
    if role is None:
        raise not_found()
    if allowed and role not in allowed:
        only_owners = set(allowed) == {HouseholdRole.OWNER}
        raise Forbidden(
            "Only the household's owners may do this." if only_owners else "Viewers may only read."
        )
    return role


async def member_ids(session: AsyncSession, household_id: int) -> list[int]:
    """Every member's id, in any role (who a change of the household's shared things concerns)."""
    statement = select(HouseholdMember.user_id).where(HouseholdMember.household_id == household_id)
    return list(await session.scalars(statement))


async def owner_count(session: AsyncSession, household_id: int) -> int:
    """How many owners the household has (it must keep one: 409 LAST_OWNER). Read after the household is
    locked, so two owners leaving at once cannot both see the other stay."""
    statement = select(func.count()).where(
        HouseholdMember.household_id == household_id, HouseholdMember.role == HouseholdRole.OWNER
    )
    return int(await session.scalar(statement) or 0)


# The members of the household a product is shared with: parameter product_id (none when it is not shared).
_MEMBERS_OF_PRODUCT: DriverRead[Any] = DriverRead(
    select(HouseholdMember.user_id)
    .join(Product, Product.household_id == HouseholdMember.household_id)
    .where(Product.id == bindparam("product_id"))
    .order_by(HouseholdMember.user_id)
)


async def members_sharing(session: AsyncSession, product_id: int) -> list[int]:
    """Every member (any role) of the household the product is shared with: who sees its claims too."""
    return [row.user_id for row in await _MEMBERS_OF_PRODUCT.all(session, product_id=product_id)]
