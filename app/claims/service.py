"""The rules of claims: opening one, moving it through its lifecycle, assigning its supplier. Each change
is recorded (app.changes) in the request's transaction, which runs what it causes."""

from __future__ import annotations

from app.access.claims import ADMIN, claim_roles
from app.changes.dispatch import record
from app.changes.events import ClaimOpened, ClaimStatusChanged, SupplierAssigned
from app.claims import outcome, transitions
from app.claims.repository import ClaimRepository, already_active
from app.core.clock import utc_now
from app.derived import read_state
from app.errors import Forbidden, NotFound, ValidationFailed
from app.models import Claim, User
from app.models.enums import ClaimStatus, Role
from app.products import extensions
from app.products import service as products_service


async def open_claim(customer: User, product_id: int, description: str, *, claims: ClaimRepository) -> Claim:
    """A new `open` claim on a product the customer may write to: their own, or one shared with a household
    where they are an owner or a member (contract 17.3); the filer is the claim's customer. 403 for a
    household viewer, 404 for any other product, 409 CLAIM_ALREADY_ACTIVE while the product has a claim
    that is not closed."""
    product = await claims.own_product(customer, product_id)
    if product is None:
        raise NotFound("No such product.")
    if await claims.has_active_claim(product.id):
        raise already_active()
    claim = await claims.add(
        Claim(
            product_id=product.id, customer_id=customer.id, status=ClaimStatus.OPEN, description=description
        )
    )
    await record(claims.session, ClaimOpened(claim, customer))
    if product.household_id is not None or product.owner_id != customer.id:
        # `hasActiveClaim` moves in the owner's and every member's product list, not only the filer's.
        await products_service.changed(claims.session, product.owner_id, product.household_id)
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
    transitions.check_move(claim.status, target, await claim_roles(claims.session, actor, claim))
    await outcome.settle(claims.session, claim, target, resolution)
    return await _apply(claim, target, actor, claims)


async def close_claim(claim: Claim, actor: User, *, claims: ClaimRepository) -> Claim:
    """Close a resolved claim (its customer or an admin): 403 for the supplier, 409 CLAIM_NOT_RESOLVED
    for a claim that is not resolved (closed included)."""
    await claims.lock(claim)
    transitions.check_close(claim.status, await claim_roles(claims.session, actor, claim))
    return await _apply(claim, ClaimStatus.CLOSED, actor, claims)


async def _apply(claim: Claim, target: ClaimStatus, actor: User, claims: ClaimRepository) -> Claim:
    former, claim.status = claim.status, target
    claim.updated_at = utc_now()
    await claims.session.flush()
    extension = await extensions.of_claim(claims.session, claim.id)
    await record(claims.session, ClaimStatusChanged(claim, former, actor, extension))
    return claim


async def assign_supplier(
    claim: Claim, supplier_id: int | None, actor: User, *, claims: ClaimRepository
) -> Claim:
    """Set (or with None, remove) the claim's supplier; admins only (403). The supplier must hold
    ROLE_SUPPLIER, by the role hierarchy (so an admin qualifies), and may not be the claim's customer."""
    if ADMIN not in await claim_roles(claims.session, actor, claim):
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
        await claims.session.flush()
        # Read receipts depend on who supplies the claim.
        await read_state.recompute(claims.session, [claim.id])
        await record(claims.session, SupplierAssigned(claim, former, actor))
    return claim
