"""The rules of claims: opening one (routed to the organisation handling its product's brand), moving it
through its lifecycle. Who works it is app.claims.assignment. Each change is recorded (app.changes) in the
request's transaction, which runs what it causes."""

from __future__ import annotations

from dataclasses import dataclass

from app.access.claims import claim_roles
from app.changes.dispatch import record
from app.changes.events import ClaimOpened, ClaimStatusChanged
from app.claims import outcome, transitions
from app.claims.assignment import take_if_first
from app.claims.repository import ClaimRepository, Routing, already_active
from app.core.clock import utc_now
from app.derived import claim_search
from app.errors import NotFound
from app.models import Claim, Product, User
from app.models.enums import ClaimStatus
from app.organizations import deadlines
from app.products import extensions
from app.products import service as products_service


@dataclass(frozen=True)
class OpenedClaim:
    claim: Claim
    product: Product
    routing: Routing | None  # the organisation it went to


async def open_claim(
    customer: User, product_id: int, description: str, *, claims: ClaimRepository
) -> OpenedClaim:
    """A new `open` claim on a product the customer may write to: their own, or one shared with a household
    where they are an owner or a member (contract 17.3); the filer is the claim's customer. A product whose
    brand an organisation handles routes the claim to it, with no agent yet (17.6). 403 for a household
    viewer, 404 for any other product, 409 CLAIM_ALREADY_ACTIVE while the product has a claim that is not
    closed."""
    product = await claims.own_product(customer, product_id)
    if product is None:
        raise NotFound("No such product.")
    if await claims.has_active_claim(product.id):
        raise already_active()
    routing = await claims.routing_of(product.brand)
    claim = await claims.add(
        Claim(
            product_id=product.id,
            customer_id=customer.id,
            status=ClaimStatus.OPEN,
            description=description,
            search_text=claim_search.search_text(product.name, description),
            organization_id=None if routing is None else routing.organization_id,
        )
    )
    if routing is not None:
        await deadlines.start_new(claims.session, claim, routing.terms, claim.created_at)
    await record(claims.session, ClaimOpened(claim, customer))
    if product.household_id is not None or product.owner_id != customer.id:
        # `hasActiveClaim` moves in the owner's and every member's product list, not only the filer's.
        await products_service.changed(claims.session, product.owner_id, product.household_id)
    return OpenedClaim(claim, product, routing)


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
    await take_if_first(claim, actor, claims=claims, locked=True)
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
    await _move_clocks(claim, former, actor, claims)
    extension = await extensions.of_claim(claims.session, claim.id)
    await record(claims.session, ClaimStatusChanged(claim, former, actor, extension))
    return claim


async def _move_clocks(claim: Claim, former: ClaimStatus, actor: User, claims: ClaimRepository) -> None:
    """A routed claim's deadlines follow its status (app.organizations.deadlines)."""
    if claim.organization_id is None:
        return
    session = claims.session
    waits = claim.status == ClaimStatus.IN_PROGRESS and await deadlines.waits_for_customer(session, claim)
    supplier_side = await deadlines.supplier_side(session, actor, claim)
    await deadlines.status_changed(session, claim, former, supplier_side, waits, claim.updated_at)
