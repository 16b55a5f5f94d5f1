"""Who works a claim (contract 5, 17.6, 17.7): its agent (`supplierId`) and the supplier organisation it is
routed to. Admins assign anyone; an organisation's managers assign its members and hand its claims on;
its agents take unassigned claims for themselves, by asking or by answering first. Each change is recorded
(app.changes) in the request's transaction."""

from __future__ import annotations

from app.access.claims import ADMIN, acts_unassigned, claim_roles, organization_membership
from app.access.organizations import Membership
from app.changes.dispatch import record
from app.changes.events import ClaimHandedOn, SupplierAssigned
from app.claims.repository import ClaimRepository
from app.core.clock import utc_now
from app.derived import read_state
from app.errors import Conflict, Forbidden, ValidationFailed
from app.models import Claim, User
from app.models.enums import OrganizationRole, Role
from app.organizations import deadlines


async def assign_supplier(
    claim: Claim, supplier_id: int | None, actor: User, *, claims: ClaimRepository
) -> Claim:
    """Set (or with None, remove) the claim's agent. Admins may; so may a manager of the claim's
    organisation, and one of its agents taking the claim for themselves (403 otherwise; 409
    CLAIM_ALREADY_ASSIGNED when another agent has it). The agent must hold ROLE_SUPPLIER (an admin does,
    by the hierarchy), be a member of a routed claim's organisation and not be its customer (400)."""
    membership = await _who_assigns(claim, supplier_id, actor, claims)
    await claims.lock(claim)
    taking = membership is not None and membership.role == OrganizationRole.AGENT
    if taking and claim.supplier_id not in (None, actor.id):
        raise Conflict("Another agent has taken this claim.", code="CLAIM_ALREADY_ASSIGNED")
    if supplier_id is not None:
        await _check_supplier(claim, supplier_id, claims)
    await _set_supplier(claim, supplier_id, actor, claims)
    return claim


async def _who_assigns(
    claim: Claim, supplier_id: int | None, actor: User, claims: ClaimRepository
) -> Membership | None:
    """The actor's membership of the claim's organisation (None for an admin); 403 for anyone else, and
    for an agent naming someone other than themselves."""
    if ADMIN in await claim_roles(claims.session, actor, claim):
        return None
    membership = await organization_membership(claims.session, actor, claim)
    if membership is None or actor.id == claim.customer_id:
        raise Forbidden("Only an admin or the claim's organization may assign its agent.")
    if membership.role == OrganizationRole.AGENT and supplier_id != actor.id:
        raise Forbidden("An agent may only take a claim for themselves; its managers assign others.")
    return membership


async def _check_supplier(claim: Claim, supplier_id: int, claims: ClaimRepository) -> None:
    found = await claims.supplier_candidate(supplier_id)
    if found is None or Role.SUPPLIER not in found[0].effective_roles:
        raise ValidationFailed.field("supplierId", "must be the id of a user with ROLE_SUPPLIER")
    if claim.organization_id is not None and found[1] != claim.organization_id:
        raise ValidationFailed.field("supplierId", "must be a member of the claim's organization")
    if supplier_id == claim.customer_id:
        raise ValidationFailed.field("supplierId", "the claim's customer cannot be its supplier")


async def _set_supplier(claim: Claim, supplier_id: int | None, actor: User, claims: ClaimRepository) -> None:
    """The claim (locked) gets this agent, recorded as SupplierAssigned when it changes."""
    former = claim.supplier_id
    if former == supplier_id:
        return
    claim.supplier_id = supplier_id
    claim.updated_at = utc_now()
    await claims.session.flush()
    # Read receipts depend on who supplies the claim.
    await read_state.recompute(claims.session, [claim.id])
    await record(claims.session, SupplierAssigned(claim, former, actor))


async def take_if_first(claim: Claim, actor: User, *, claims: ClaimRepository, locked: bool = False) -> None:
    """A member of the claim's organisation acting on its supplier side (a message, a status change)
    while it has no agent becomes its agent, in the same transaction. Of two answering at once, the one
    who locks the claim first is assigned; the other finds it taken and only acts."""
    if await acts_unassigned(claims.session, actor, claim) is None:
        return
    if not locked:
        await claims.lock(claim)
        if await acts_unassigned(claims.session, actor, claim) is None:
            return  # taken (or handed on) meanwhile
    await _set_supplier(claim, actor.id, actor, claims)


async def move_to_organization(
    claim: Claim, organization_id: int | None, actor: User, *, claims: ClaimRepository
) -> Claim:
    """Hand the claim on to another organisation (None: to none, back to the admins). Admins may, and
    the managers of its current organisation (403 otherwise); an unknown organisation is 400. Its agent,
    if any, is unassigned first, as an unassignment always is."""
    if ADMIN not in await claim_roles(claims.session, actor, claim):
        membership = await organization_membership(claims.session, actor, claim)
        if membership is None or membership.role != OrganizationRole.MANAGER:
            raise Forbidden("Only an admin or a manager of the claim's organization may hand it on.")
    if organization_id is not None and await claims.organization_name(organization_id) is None:
        raise ValidationFailed.field("organizationId", "no such organization")
    await claims.lock(claim)
    former = claim.organization_id
    if former == organization_id:
        return claim
    await _set_supplier(claim, None, actor, claims)
    claim.organization_id = organization_id
    claim.updated_at = utc_now()
    await claims.session.flush()
    await deadlines.start(claims.session, claim, claim.updated_at)  # afresh for the new organisation
    await record(claims.session, ClaimHandedOn(claim, former, actor))
    return claim
