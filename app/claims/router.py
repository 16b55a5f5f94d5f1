"""The claims API (docs/api.md §6.1, §6.3): opening claims, the caller's and the admin's lists, the
detail, the lifecycle and supplier assignment."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response, status
from sqlalchemy import select

from app.access.claims import participating_claims
from app.api.dependencies import (
    ONE_SNAPSHOT,
    AdminUser,
    CachedPages,
    CurrentUser,
    Pagination,
    SessionDep,
    SettingsDep,
    VisibleClaimById,
)
from app.api.openapi import errors
from app.api.pagination import JsonList, Page, PageParams, list_json
from app.claims import mutes, service
from app.claims.dependencies import ClaimQuery, ClaimRepo
from app.claims.outcome import Resolution
from app.claims.repository import LIST_KEY, ClaimFilter
from app.claims.schemas import (
    ClaimCreate,
    ClaimDetail,
    ClaimListItem,
    ClaimMessage,
    ClaimProduct,
    MuteState,
    StatusChange,
    SupplierAssign,
)
from app.models import Claim
from app.models.enums import ClaimStatus
from app.pagecache.scopes import CLAIMS_ALL, PRODUCTS_ALL, USERS_ALL, claims_of
from app.products import extensions
from app.products.schemas import WarrantyExtensionOut
from app.realtime.handoff import read_handoff

router = APIRouter(prefix="/api", tags=["claims"])


CLAIMS_JSON = JsonList(ClaimListItem)


async def _list(
    scopes: list[str],
    base: Any,
    where: ClaimFilter,
    params: PageParams,
    claims: ClaimRepo,
    page: CachedPages,
    everyone: bool = False,
) -> Response:
    paged = everyone or params.requested

    async def compute() -> bytes:
        if not paged:
            rows, _ = await claims.list_items(base, where)
            items = [ClaimListItem.model_validate(row) for row in rows]
            return list_json(CLAIMS_JSON(items), len(items), None, params, page.request)
        after = params.after_key(LIST_KEY)
        rows, total = await claims.list_items(
            base, where, offset=params.offset, limit=params.fetch, after=after, everyone=everyone
        )
        rows, next_cursor = params.window(rows, lambda row: (row.created_at, row.id))
        items = [ClaimListItem.model_validate(row) for row in rows]
        return list_json(CLAIMS_JSON(items), len(items), total, params, page.request, next_cursor)

    return await page.respond(scopes, compute)


@router.post(
    "/claims",
    status_code=status.HTTP_201_CREATED,
    response_model=ClaimListItem,
    responses=errors(400, 401, 404, 409),
)
async def create_claim(
    body: ClaimCreate, user: CurrentUser, claims: ClaimRepo, response: Response
) -> ClaimListItem:
    """Open a claim on one of the caller's products (404 for any other product). It starts `open`. 409
    CLAIM_ALREADY_ACTIVE while the product has a claim that is not closed."""
    claim = await service.open_claim(user, body.product_id, body.description, claims=claims)
    product = await claims.product_of(claim)
    response.headers["Location"] = f"/api/claims/{claim.id}"
    return ClaimListItem(
        id=claim.id,
        product_id=product.id,
        product_name=product.name,
        product_brand=product.brand,
        customer_id=user.id,
        customer_email=user.email,
        status=claim.status,
        description=claim.description,
        created_at=claim.created_at,
        message_count=0,
    )


@router.get("/claims", response_model=list[ClaimListItem] | Page[ClaimListItem], responses=errors(400, 401))
async def list_claims(
    user: CurrentUser, where: ClaimQuery, params: Pagination, claims: ClaimRepo, page: CachedPages
) -> Response:
    """The claims the caller takes part in, as customer or as assigned supplier (for admins too: the
    admin's view of every claim is `GET /api/admin/claims`), newest first. Filters `status`,
    `productId`. A bare array of every match, or the 8.1 envelope when `page` or `limit` is given."""
    scopes = [claims_of(user.id), PRODUCTS_ALL, USERS_ALL]
    base = participating_claims(user)
    return await _list(scopes, base, where, params, claims, page)


@router.get("/admin/claims", response_model=Page[ClaimListItem], responses=errors(400, 401, 403))
async def admin_list_claims(
    admin: AdminUser, where: ClaimQuery, params: Pagination, claims: ClaimRepo, page: CachedPages
) -> Response:
    """Every claim, newest first (admin only), always in the 8.1 envelope; filters `status`, `productId`."""
    scopes = [CLAIMS_ALL, PRODUCTS_ALL, USERS_ALL]
    base = select(Claim)
    return await _list(scopes, base, where, params, claims, page, everyone=True)


async def _detail(claim: Claim, claims: ClaimRepo) -> ClaimDetail:
    product = await claims.product_of(claim)
    messages, has_more = await claims.newest_messages(claim.id)
    extension = await extensions.of_claim(claims.session, claim.id)
    return ClaimDetail(
        id=claim.id,
        status=claim.status,
        description=claim.description,
        product=ClaimProduct.model_validate(product),
        product_id=product.id,
        customer_id=claim.customer_id,
        supplier_id=claim.supplier_id,
        messages=[ClaimMessage.model_validate(row) for row in messages],
        has_more_messages=has_more,
        outcome=claim.outcome,
        outcome_note=claim.outcome_note,
        warranty_extension=None if extension is None else WarrantyExtensionOut.model_validate(extension),
        created_at=claim.created_at,
        updated_at=claim.updated_at,
    )


@router.get(
    "/claims/{id}", response_model=ClaimDetail, responses=errors(400, 401, 404), dependencies=[ONE_SNAPSHOT]
)
async def get_claim(
    claim: VisibleClaimById, claims: ClaimRepo, session: SessionDep, settings: SettingsDep, response: Response
) -> ClaimDetail:
    """A claim with its product and its newest 200 messages (oldest first among them; `hasMoreMessages`
    says whether older ones exist, which `GET /api/claims/{id}/messages` pages through), for its customer,
    its assigned supplier and admins (404 for anyone else). `Link` names the hub and the event id to
    subscribe from (`rel="mercure"`, `last-event-id`) and the claim's messages topic (`rel="self"`)."""
    response.headers["Link"] = await read_handoff(session, settings, claim.id)
    return await _detail(claim, claims)


@router.post("/claims/{id}/status", response_model=ClaimDetail, responses=errors(400, 401, 403, 404, 409))
async def change_status(
    body: StatusChange, claim: VisibleClaimById, user: CurrentUser, claims: ClaimRepo
) -> ClaimDetail:
    """Move a claim: open -> in_progress and in_progress -> resolved (assigned supplier, admin);
    resolved -> in_progress (customer, supplier, admin: reopen); resolved -> closed (customer, admin).
    404 for who cannot see the claim, 403 for a participant the move is not for, 409
    INVALID_STATUS_TRANSITION for any other move. Publishes `status_update` and notifies the other
    participants.

    Resolving may record `outcome` (repaired, replaced, refunded, rejected), an `outcomeNote`, and for
    repaired or replaced `newWarrantyMonths`: a warranty extension from today (UTC) that moves the
    product's `warrantyExpiresAt` to the later of its ends. These fields go only with `resolved`, a note
    only with an outcome, and the months only with repaired or replaced (else 400 VALIDATION_FAILED,
    checked with the body, before who may make the move). A reopen removes the outcome and the extension."""
    resolution = Resolution(body.outcome, body.outcome_note, body.new_warranty_months)
    await service.change_status(claim, ClaimStatus(body.status), user, claims=claims, resolution=resolution)
    return await _detail(claim, claims)


@router.post("/claims/{id}/close", response_model=ClaimDetail, responses=errors(401, 403, 404, 409))
async def close_claim(claim: VisibleClaimById, user: CurrentUser, claims: ClaimRepo) -> ClaimDetail:
    """Close a resolved claim (its customer or an admin; 403 for the supplier). 409 CLAIM_NOT_RESOLVED
    when it is not resolved (closed included). Answers the detail; publishes `status_update` and
    notifies the other participants."""
    await service.close_claim(claim, user, claims=claims)
    return await _detail(claim, claims)


@router.put("/claims/{id}/supplier", response_model=ClaimDetail, responses=errors(400, 401, 403, 404))
async def assign_supplier(
    body: SupplierAssign, claim: VisibleClaimById, user: CurrentUser, claims: ClaimRepo
) -> ClaimDetail:
    """Assign the claim's supplier (admin only: 403 for its participants, 404 for anyone else).
    `supplierId` must be a user holding ROLE_SUPPLIER (an admin counts, by the role hierarchy) other than
    the customer, else 400 VALIDATION_FAILED; `null` unassigns."""
    await service.assign_supplier(claim, body.supplier_id, user, claims=claims)
    return await _detail(claim, claims)


@router.post("/claims/{id}/mute", response_model=MuteState, responses=errors(400, 401, 404))
async def mute_claim(claim: VisibleClaimById, user: CurrentUser, session: SessionDep) -> MuteState:
    """Stop the caller's notifications (email, push) of this claim's messages and status changes; the
    hub's topics are unaffected. Any participant may; household viewers are muted until they unmute."""
    await mutes.set_muted(session, user, claim, True)
    return MuteState(claim_id=claim.id, muted=True)


@router.post("/claims/{id}/unmute", response_model=MuteState, responses=errors(400, 401, 404))
async def unmute_claim(claim: VisibleClaimById, user: CurrentUser, session: SessionDep) -> MuteState:
    """Hear of the claim again (a household viewer: start hearing of it)."""
    await mutes.set_muted(session, user, claim, False)
    return MuteState(claim_id=claim.id, muted=False)
