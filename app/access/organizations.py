"""Who works for a supplier organisation, and as what (contract 17.5): the one place that reads its
memberships for access. An organisation's claims are seen by every member as their supplier side; managers
manage its members and hand claims on; agents work its queue. A user belongs to at most one organisation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.driver_reads import DriverRead
from app.errors import Forbidden, NotFound
from app.models import OrganizationMember, User
from app.models.enums import OrganizationRole, Role


@dataclass(frozen=True)
class Membership:
    organization_id: int
    role: OrganizationRole


# The caller's organisation, read by every organisation route and claim write: on the driver's connection.
_MEMBERSHIP: DriverRead[Any] = DriverRead(
    select(OrganizationMember.organization_id, OrganizationMember.role).where(
        OrganizationMember.user_id == bindparam("user_id")
    )
)


def organization_ids_of(user_id: Any) -> Select[Any]:
    """The id of the organisation `user_id` works for (none or one), as a subquery of access statements."""
    return select(OrganizationMember.organization_id).where(OrganizationMember.user_id == user_id)


def not_found() -> NotFound:
    return NotFound("No such organization.")


async def membership_of(session: AsyncSession, user: User) -> Membership | None:
    """The user's organisation and role there, or None."""
    return await membership_of_id(session, user.id)


async def membership_of_id(session: AsyncSession, user_id: int) -> Membership | None:
    """The organisation and role of the user with this id (any id), or None."""
    rows = await _MEMBERSHIP.all(session, user_id=user_id)
    return Membership(rows[0].organization_id, OrganizationRole(rows[0].role)) if rows else None


async def require_member(
    session: AsyncSession, user: User, organization_id: int, *allowed: OrganizationRole
) -> Membership | None:
    """The user's membership of this organisation, holding one of `allowed` (any role when none is
    given); admins pass without one (None). 404 for a user of another organisation or none, as for a
    missing organisation; 403 for a member without the role."""
    membership = await membership_of(session, user)
    if membership is None or membership.organization_id != organization_id:
        if Role.ADMIN in user.effective_roles:
            return None
        raise not_found()
    if allowed and membership.role not in allowed:
        raise Forbidden("Only the organization's managers may do this.")
    return membership


async def member_ids(session: AsyncSession, organization_id: int) -> list[int]:
    """Every member's id, in any role (whom a change of the organisation concerns)."""
    statement = select(OrganizationMember.user_id).where(
        OrganizationMember.organization_id == organization_id
    )
    return list(await session.scalars(statement))


async def manager_count(session: AsyncSession, organization_id: int) -> int:
    """How many managers the organisation has (its managers may not remove the last: 409 LAST_MANAGER).
    Read after the organisation is locked, so two managers stepping down at once cannot both see the
    other stay."""
    statement = select(func.count()).where(
        OrganizationMember.organization_id == organization_id,
        OrganizationMember.role == OrganizationRole.MANAGER,
    )
    return int(await session.scalar(statement) or 0)
