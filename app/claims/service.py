"""The rules of claims: opening one, moving it through its lifecycle, assigning its supplier. Each change
records its cache invalidations, and a status change its `status_update` event and notifications, in the
request's transaction."""

from __future__ import annotations

from app.claims import outcome, transitions
from app.claims.access import ADMIN, claim_roles
from app.claims.repository import ClaimRepository, already_active
from app.claims.scopes import MESSAGES_ALL, PRODUCTS_ALL, claim_scopes, messages_of, products_of
from app.claims.status import ClaimStatus
from app.core.cache import invalidate
from app.core.clock import iso_utc_z, utc_now
from app.errors import Forbidden, NotFound, ValidationFailed
from app.messages import recipient_reads
from app.models import Claim, User
from app.notifications import triggers
from app.realtime.events import publish, status_topic
from app.timeline.record import TimelineKind, add_to_timeline
from app.users.roles import Role


async def open_claim(customer: User, product_id: int, description: str, *, claims: ClaimRepository) -> Claim:
    """A new `open` claim on one of the customer's products: 404 for anyone else's product, 409
    CLAIM_ALREADY_ACTIVE while the product has a claim that is not closed."""
    product = await claims.own_product(customer.id, product_id)
    if product is None:
        raise NotFound("No such product.")
    if await claims.has_active_claim(product.id):
        raise already_active()
    claim = await claims.add(
        Claim(
            product_id=product.id, customer_id=customer.id, status=ClaimStatus.OPEN, description=description
        )
    )
    add_to_timeline(claims.session, claim, TimelineKind.CLAIM_CREATED, customer, status=claim.status)
    await triggers.claim_opened(claims.session, claim)
    _invalidate(claims, claim)
    return claim


async def change_status(
    claim: Claim,
    target: ClaimStatus,
    actor: User,
    *,
    claims: ClaimRepository,
    resolution: outcome.Resolution = outcome.NONE,
) -> Claim:
    """Move the claim to `target` if the lifecycle allows it and the actor may (403/409 otherwise),
    recording the outcome of a resolution or undoing it on a reopen."""
    await claims.lock(claim)
    transitions.check_move(claim.status, target, claim_roles(actor, claim))
    await outcome.settle(claims.session, claim, target, resolution)
    return await _apply(claim, target, actor, claims)


async def close_claim(claim: Claim, actor: User, *, claims: ClaimRepository) -> Claim:
    """Close a resolved claim (its customer or an admin): 403 for the supplier, 409 CLAIM_NOT_RESOLVED
    for a claim that is not resolved (closed included)."""
    await claims.lock(claim)
    transitions.check_close(claim.status, claim_roles(actor, claim))
    return await _apply(claim, ClaimStatus.CLOSED, actor, claims)


async def _apply(claim: Claim, target: ClaimStatus, actor: User, claims: ClaimRepository) -> Claim:
    session = claims.session
    former, claim.status = claim.status, target
    claim.updated_at = utc_now()
    moved = {"from": former, "to": target} | await outcome.recorded(session, claim, target)
    add_to_timeline(session, claim, TimelineKind.STATUS_CHANGED, actor, **moved)
    await session.flush()
    payload = {
        "type": "status_update",
        "claimId": claim.id,
        "status": claim.status,
        "updatedAt": iso_utc_z(claim.updated_at),
    }
    await publish(session, status_topic(claim.id), payload)
    participants = await claims.users(claim.customer_id, claim.supplier_id)
    await triggers.status_changed(session, claim, former, actor, triggers.recipients(participants, actor))
    _invalidate(claims, claim)
    return claim


async def assign_supplier(
    claim: Claim, supplier_id: int | None, actor: User, *, claims: ClaimRepository
) -> Claim:
    """Set (or with None, remove) the claim's supplier; admins only (403). The supplier must hold
    ROLE_SUPPLIER, by the role hierarchy (so an admin qualifies), and may not be the claim's customer."""
    if ADMIN not in claim_roles(actor, claim):
        raise Forbidden("Only an admin may assign a claim's supplier.")
    await claims.lock(claim)
    if supplier_id is not None:
        supplier = next(iter(await claims.users(supplier_id)), None)
        if supplier is None or Role.SUPPLIER not in supplier.effective_roles:
            raise ValidationFailed.field("supplierId", "must be the id of a user with ROLE_SUPPLIER")
        if supplier.id == claim.customer_id:
            raise ValidationFailed.field("supplierId", "the claim's customer cannot be its supplier")
    former = claim.supplier_id
    if former != supplier_id:
        claim.supplier_id = supplier_id
        claim.updated_at = utc_now()
        if supplier_id is None:
            add_to_timeline(claims.session, claim, TimelineKind.SUPPLIER_UNASSIGNED, actor, supplierId=former)
        else:
            kind = TimelineKind.SUPPLIER_ASSIGNED
            add_to_timeline(
                claims.session, claim, kind, actor, supplierId=supplier_id, previousSupplierId=former
            )
        await claims.session.flush()
        # Read receipts and who sees the claim's pages depend on who supplies it.
        await recipient_reads.recompute(claims.session, [claim.id])
        _invalidate(claims, claim, former)
        invalidate(claims.session, messages_of(claim.id), MESSAGES_ALL)
        await triggers.supplier_assigned(claims.session, claim, former, actor)
    return claim


def _invalidate(claims: ClaimRepository, claim: Claim, *former_suppliers: int | None) -> None:
    # hasActiveClaim and the product's claim list change with a claim's creation and status.
    scopes = claim_scopes(claim, *former_suppliers)
    invalidate(claims.session, *scopes, products_of(claim.customer_id), PRODUCTS_ALL)
