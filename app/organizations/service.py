"""The rules of supplier organisations (contract 17.5; docs/api.md, "Supplier organisations"): admins
create and change them; a brand belongs to at most one organisation; members are ROLE_SUPPLIER users, each
in at most one organisation; managers manage their own organisation's members and keep at least one
manager. Every change of an organisation's brands or members locks it first, so the checks below hold
under concurrent requests; the tables' keys settle what a lock cannot (a brand or a user taken by another
organisation at the same moment)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.access.organizations import (
    Membership,
    manager_count,
    member_ids,
    membership_of,
    membership_of_id,
    not_found,
    require_member,
)
from app.changes.dispatch import record
from app.changes.events import OrganizationAccessEnded, OrganizationRenamed
from app.core.clock import utc_now
from app.core.ids import MAX_ID
from app.errors import Conflict, NotFound, ValidationFailed
from app.models import Organization, User
from app.models.enums import OrganizationRole, Role
from app.organizations import deadlines
from app.organizations.brands import brand_key
from app.organizations.repository import Member, MemberRepository, OrganizationRepository

MANAGER = OrganizationRole.MANAGER


def brand_taken(brands: Sequence[str]) -> Conflict:
    listed = ", ".join(f'"{brand}"' for brand in brands)
    return Conflict(
        f"Another organization handles {listed} already; a brand belongs to one organization.",
        code="BRAND_TAKEN",
        details={"brands": list(brands)},
    )


def not_a_supplier() -> ValidationFailed:
    # One answer for an unknown id and a user without the role: a manager learns nothing about accounts.
    problem = "not a user with ROLE_SUPPLIER"
    return ValidationFailed(
        f"userId: {problem}", code="NOT_A_SUPPLIER", details={"fields": {"userId": problem}}
    )


def already_member() -> Conflict:
    return Conflict("This user is a member of the organization already.", code="ALREADY_MEMBER")


def already_in_organization() -> Conflict:
    return Conflict(
        "This user belongs to another organization; a user belongs to at most one.",
        code="ALREADY_IN_ORGANIZATION",
    )


def last_manager() -> Conflict:
    return Conflict(
        "An organization's managers keep at least one manager; make another member manager first.",
        code="LAST_MANAGER",
    )


def no_member() -> NotFound:
    return NotFound("No such member.")


def _is_id(value: int) -> bool:
    """Within the ids the tables hold: anything else names nothing (404), and is never sent to SQL."""
    return 1 <= value <= MAX_ID


def _is_admin(user: User) -> bool:
    return Role.ADMIN in user.effective_roles


async def record_access_ended(session: AsyncSession, organization_id: int, user_ids: Sequence[int]) -> None:
    """These users no longer belong to the organisation (removed, or it was deleted): their access to its
    claims as their supplier side ends at once, open hub streams included (app.changes)."""
    if user_ids:
        await record(session, OrganizationAccessEnded(organization_id, tuple(user_ids)))


async def record_organization_changed(session: AsyncSession, organization_id: int) -> None:
    """The organisation was renamed or deleted: the cached claim lists that show it go (app.changes)."""
    await record(session, OrganizationRenamed(organization_id))


# --- Organisations (admins; the routes require ROLE_ADMIN)


async def _locked(organizations: OrganizationRepository, organization_id: int) -> Organization:
    organization = await organizations.lock(organization_id) if _is_id(organization_id) else None
    if organization is None:
        raise not_found()
    return organization


async def get(organization_id: int, *, organizations: OrganizationRepository) -> Organization:
    organization = await organizations.get(organization_id) if _is_id(organization_id) else None
    if organization is None:
        raise not_found()
    return organization


async def _keep_brands(
    organizations: OrganizationRepository, organization_id: int, held: Mapping[str, str], brands: list[str]
) -> None:
    """Makes the organisation's brands `brands` (distinct by key already); 409 BRAND_TAKEN naming those
    another organisation holds, whether read here or refused by the key at the same moment."""
    wanted = {brand_key(brand): brand for brand in brands}
    new = [key for key in wanted if key not in held]
    taken = await organizations.holders(new, organization_id) if new else {}
    if taken:
        raise brand_taken([wanted[key] for key in new if key in taken])
    if not await organizations.set_brands(organization_id, held, wanted):
        taken = await organizations.holders(new, organization_id)  # committed by now: it refused ours
        raise brand_taken([wanted[key] for key in new if key in taken] or [wanted[key] for key in new])


async def create(
    name: str, brands: list[str], email: str | None, *, organizations: OrganizationRepository
) -> Organization:
    organization = await organizations.add(name, email)
    await _keep_brands(organizations, organization.id, {}, brands)
    return organization


async def update(
    organization_id: int,
    *,
    name: str | None,
    brands: list[str] | None,
    email: str | None,
    set_email: bool,
    organizations: OrganizationRepository,
    deadline_change: DeadlineChange | None = None,
) -> Organization:
    """Changes what is given (None: unchanged; `email` only with `set_email`, where None removes it);
    `brands` replaces the list; the deadlines as `set_deadlines` does."""
    organization = await _locked(organizations, organization_id)
    if deadline_change is not None:
        await _apply_deadlines(organizations, organization, deadline_change)
    if brands is not None:
        held = (await organizations.brands_of([organization_id]))[organization_id]
        await _keep_brands(organizations, organization_id, held, brands)
    renamed = name is not None and name != organization.name
    if name is not None:
        organization.name = name
    if set_email:
        organization.email = email
    if name is not None or brands is not None or set_email:
        organization.updated_at = utc_now()  # brands are rows of their own: the organisation changed too
    await organizations.session.flush()
    if renamed:
        await record_organization_changed(organizations.session, organization_id)
    return organization


@dataclass(frozen=True)
class DeadlineChange:
    """What a request changes of the deadlines: None leaves a value; `business_hours` only with
    `set_hours` (None removes them)."""

    first_response_minutes: int | None = None
    resolution_minutes: int | None = None
    business_hours: dict[str, Any] | None = None
    set_hours: bool = False

    @property
    def changes_anything(self) -> bool:
        return (
            self.first_response_minutes is not None or self.resolution_minutes is not None or self.set_hours
        )


async def _apply_deadlines(
    organizations: OrganizationRepository, organization: Organization, change: DeadlineChange
) -> None:
    """Sets the deadlines on the (locked) organisation; if they changed, its open claims' deadlines are
    re-computed in the same transaction (app.organizations.deadlines.recompute)."""
    before = deadlines.Terms.of(organization)
    if change.first_response_minutes is not None:
        organization.first_response_minutes = change.first_response_minutes
    if change.resolution_minutes is not None:
        organization.resolution_minutes = change.resolution_minutes
    if change.set_hours:
        organization.business_hours = change.business_hours
    after = deadlines.Terms.of(organization)
    if change.changes_anything:
        organization.updated_at = utc_now()
    await organizations.session.flush()
    if after != before:
        await deadlines.recompute(organizations.session, organization.id, after)


async def set_deadlines(
    user: User, organization_id: int, change: DeadlineChange, *, organizations: OrganizationRepository
) -> Organization:
    """The organisation's managers (403 for its agents, 404 for anyone else) and admins set its
    deadlines."""
    organization = await _managed(user, organization_id, organizations)
    await _apply_deadlines(organizations, organization, change)
    return organization


async def delete(organization_id: int, *, organizations: OrganizationRepository) -> None:
    """Its brands and memberships go with it; its claims stay, without an organisation."""
    organization = await _locked(organizations, organization_id)
    members = await member_ids(organizations.session, organization_id)
    await organizations.delete(organization)
    await record_access_ended(organizations.session, organization_id, members)
    await record_organization_changed(organizations.session, organization_id)


async def mine(user: User, *, organizations: OrganizationRepository) -> tuple[Organization, Membership]:
    """The caller's organisation and their membership; 404 when they belong to none."""
    membership = await membership_of(organizations.session, user)
    organization = None if membership is None else await organizations.get(membership.organization_id)
    if membership is None or organization is None:
        raise NotFound("You belong to no organization.")
    return organization, membership


# --- Members: admins on either path, the organisation's managers on /api/organizations/{id}/members


async def _managed(user: User, organization_id: int, organizations: OrganizationRepository) -> Organization:
    """The organisation, locked, for its managers and admins (404 for members of others and non-members,
    as for a missing organisation; 403 for its agents)."""
    await require_member(organizations.session, user, organization_id, MANAGER)
    return await _locked(organizations, organization_id)


async def ensure_visible(user: User, organization_id: int, *, organizations: OrganizationRepository) -> None:
    """Its members in any role and admins may read its members; 404 for anyone else."""
    if await require_member(organizations.session, user, organization_id) is None:
        await get(organization_id, organizations=organizations)  # an admin: it must exist


async def member(
    user: User,
    organization_id: int,
    target_id: int,
    *,
    organizations: OrganizationRepository,
    members: MemberRepository,
) -> Member:
    await ensure_visible(user, organization_id, organizations=organizations)
    return await _member(members, organization_id, target_id)


async def _member(members: MemberRepository, organization_id: int, user_id: int) -> Member:
    found = await members.get(organization_id, user_id) if _is_id(user_id) else None
    if found is None:
        raise no_member()
    return found


async def add_member(
    user: User,
    organization_id: int,
    target_id: int,
    role: OrganizationRole,
    *,
    organizations: OrganizationRepository,
    members: MemberRepository,
) -> Member:
    """A ROLE_SUPPLIER user (admins too, by the hierarchy) who belongs to no organisation joins this one."""
    await _managed(user, organization_id, organizations)
    target = await members.user(target_id) if _is_id(target_id) else None
    if target is None or Role.SUPPLIER not in target.effective_roles:
        raise not_a_supplier()
    if not await members.add(organization_id, target_id, role, utc_now()):
        await _refuse_second_membership(members.session, organization_id, target_id)
    return await _member(members, organization_id, target_id)


async def _refuse_second_membership(session: AsyncSession, organization_id: int, user_id: int) -> None:
    """Why the user's membership could not be added: they have one (409), or their account is gone."""
    current = await membership_of_id(session, user_id)
    if current is None:
        raise not_a_supplier()  # deleted meanwhile
    raise already_member() if current.organization_id == organization_id else already_in_organization()


async def change_role(
    user: User,
    organization_id: int,
    target_id: int,
    role: OrganizationRole,
    *,
    organizations: OrganizationRepository,
    members: MemberRepository,
) -> Member:
    """Managers (their own role too) and admins set a member's role; managers may not demote the last
    manager, admins may."""
    await _managed(user, organization_id, organizations)
    current = await _member(members, organization_id, target_id)
    if current.role == MANAGER and role != MANAGER:
        await _keep_a_manager(user, members.session, organization_id)
    if role != current.role:
        await members.set_role(organization_id, target_id, role)
    return await _member(members, organization_id, target_id)


async def remove_member(
    user: User,
    organization_id: int,
    target_id: int,
    *,
    organizations: OrganizationRepository,
    members: MemberRepository,
) -> None:
    """Managers (themselves too) and admins remove a member; managers may not remove the last manager,
    admins may. The member's access to the organisation's claims ends at once."""
    await _managed(user, organization_id, organizations)
    current = await _member(members, organization_id, target_id)
    if current.role == MANAGER:
        await _keep_a_manager(user, members.session, organization_id)
    await members.remove(organization_id, target_id)
    await record_access_ended(members.session, organization_id, [target_id])


async def _keep_a_manager(user: User, session: AsyncSession, organization_id: int) -> None:
    """A manager steps down or leaves: refused for the last one unless an admin does it (an organisation
    without managers is managed by admins, as it is when created)."""
    if not _is_admin(user) and await manager_count(session, organization_id) <= 1:
        raise last_manager()
