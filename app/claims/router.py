"""The claims API (docs/api.md §6.1, §6.3, §16): opening claims, the caller's and the admin's lists, the
detail, the lifecycle, supplier assignment, handing a claim on to another organisation, and an
organisation's queue."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, Response, status
from sqlalchemy import select

from app.access.claims import participating_claims
from app.access.organizations import not_found as organization_not_found
from app.access.organizations import require_member
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
from app.claims import assignment, mutes, service
from app.claims.dependencies import ClaimQuery, ClaimRepo, QueueQuery, QueueRepo, QueueSort
from app.claims.outcome import Resolution
from app.claims.queue import QUEUE_KEY
from app.claims.repository import LIST_KEY, ClaimFilter
from app.claims.schemas import (
    ClaimCreate,
    ClaimDetail,
    ClaimListItem,
    ClaimMessage,
    ClaimOrganization,
    ClaimProduct,
    MuteState,
    OrganizationAssign,
    QueueItem,
    StatusChange,
    SupplierAssign,
    claim_rma,
    organization_of,
    sla_of,
)
from app.core.ids import DIGITS_ONLY, MAX_ID
from app.models import Claim
from app.models.enums import ClaimStatus
from app.pagecache.scopes import CLAIMS_ALL, ORGANIZATIONS_ALL, PRODUCTS_ALL, USERS_ALL, claims_of
from app.products import extensions
from app.products.schemas import WarrantyExtensionOut
from app.ratings.repository import RatingRepository
from app.ratings.schemas import RatingOut
from app.realtime.handoff import read_handoff

router = APIRouter(prefix="/api", tags=["claims"])


CLAIMS_JSON = JsonList(ClaimListItem)
QUEUE_JSON = JsonList(QueueItem)


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
            items = [ClaimListItem.of(row) for row in rows]
            return list_json(CLAIMS_JSON(items), len(items), None, params, page.request)
        after = params.after_key(LIST_KEY)
        rows, total = await claims.list_items(
            base, where, offset=params.offset, limit=params.fetch, after=after, everyone=everyone
        )
        rows, next_cursor = params.window(rows, lambda row: (row.created_at, row.id))
        items = [ClaimListItem.of(row) for row in rows]
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
    """Open a claim on one of the caller's products (404 for any other product). It starts `open`; when an
    organization handles the product's brand (any case), it is routed there (`organization`), with no
    agent yet. 409 CLAIM_ALREADY_ACTIVE while the product has a claim that is not closed."""
    opened = await service.open_claim(user, body.product_id, body.description, claims=claims)
    claim, product, routing = opened.claim, opened.product, opened.routing
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
        organization=None
        if routing is None
        else ClaimOrganization(id=routing.organization_id, name=routing.name),
    )


@router.get("/claims", response_model=list[ClaimListItem] | Page[ClaimListItem], responses=errors(400, 401))
async def list_claims(
    user: CurrentUser, where: ClaimQuery, params: Pagination, claims: ClaimRepo, page: CachedPages
) -> Response:
    """The claims the caller takes part in, as customer or as assigned supplier (for admins too: the
    admin's view of every claim is `GET /api/admin/claims`; an organization's unassigned claims are in its
    queue, `GET /api/organizations/{id}/claims`), newest first. Filters `status`, `productId`. A bare
    array of every match, or the 8.1 envelope when `page` or `limit` is given."""
    scopes = [claims_of(user.id), PRODUCTS_ALL, USERS_ALL, ORGANIZATIONS_ALL]
    base = participating_claims(user)
    return await _list(scopes, base, where, params, claims, page)


@router.get("/admin/claims", response_model=Page[ClaimListItem], responses=errors(400, 401, 403))
async def admin_list_claims(
    admin: AdminUser, where: ClaimQuery, params: Pagination, claims: ClaimRepo, page: CachedPages
) -> Response:
    """Every claim, newest first (admin only), always in the 8.1 envelope; filters `status`, `productId`."""
    scopes = [CLAIMS_ALL, PRODUCTS_ALL, USERS_ALL, ORGANIZATIONS_ALL]
    base = select(Claim)
    return await _list(scopes, base, where, params, claims, page, everyone=True)


async def _detail(claim: Claim, claims: ClaimRepo) -> ClaimDetail:
    header = await claims.header_of(claim)
    messages, has_more = await claims.newest_messages(claim.id)
    extension = await extensions.of_claim(claims.session, claim.id)
    rating = await RatingRepository(claims.session).of_claim(claim.id)
    return ClaimDetail(
        id=claim.id,
        status=claim.status,
        description=claim.description,
        product=ClaimProduct(id=header.product_id, name=header.name, brand=header.brand),
        product_id=header.product_id,
        customer_id=claim.customer_id,
        supplier_id=claim.supplier_id,
        organization=organization_of(header),
        sla=sla_of(header),
        messages=[ClaimMessage.model_validate(row) for row in messages],
        has_more_messages=has_more,
        outcome=claim.outcome,
        outcome_note=claim.outcome_note,
        warranty_extension=None if extension is None else WarrantyExtensionOut.model_validate(extension),
        rma=claim_rma(await claims.rma_of(claim.id)),
        rating=None if rating is None else RatingOut.of(rating),
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
    its assigned supplier, the members of its organization and admins (404 for anyone else). `Link` names
    the hub and the event id to subscribe from (`rel="mercure"`, `last-event-id`) and the claim's messages
    topic (`rel="self"`)."""
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


@router.put("/claims/{id}/supplier", response_model=ClaimDetail, responses=errors(400, 401, 403, 404, 409))
async def assign_supplier(
    body: SupplierAssign, claim: VisibleClaimById, user: CurrentUser, claims: ClaimRepo
) -> ClaimDetail:
    """Assign the claim's supplier (its agent): an admin, a manager of the claim's organization (any of
    its members), or one of its agents taking the claim for themselves (409 CLAIM_ALREADY_ASSIGNED when
    another agent has it); 403 for the other participants, 404 for anyone else. `supplierId` must be a user
    holding ROLE_SUPPLIER (an admin counts, by the role hierarchy), a member of a routed claim's
    organization, other than the customer, else 400 VALIDATION_FAILED; `null` unassigns."""
    await assignment.assign_supplier(claim, body.supplier_id, user, claims=claims)
    return await _detail(claim, claims)


@router.put("/claims/{id}/organization", response_model=ClaimDetail, responses=errors(400, 401, 403, 404))
async def hand_on(
    body: OrganizationAssign, claim: VisibleClaimById, user: CurrentUser, claims: ClaimRepo
) -> ClaimDetail:
    """Hand the claim on to another organization (`null`: to none, for the admins to assign): an admin or
    a manager of its current organization (403 for its other participants and members, 404 for anyone
    else). Its agent, if any, is unassigned. An unknown organization is 400 VALIDATION_FAILED."""
    await assignment.move_to_organization(claim, body.organization_id, user, claims=claims)
    return await _detail(claim, claims)


OrganizationId = Annotated[int, Path(alias="id", description="The organization's id."), DIGITS_ONLY]


@router.get("/organizations/{id}/claims", response_model=Page[QueueItem], responses=errors(400, 401, 404))
async def organization_queue(
    organization_id: OrganizationId,
    user: CurrentUser,
    where: QueueQuery,
    sort: QueueSort,
    params: Pagination,
    queue: QueueRepo,
    request: Request,
) -> Response:
    """The organization's queue: the claims routed to it, oldest first (`sort=created`, the default), or
    soonest open deadline first (`sort=due`: the earlier of the unmet first response and the running
    resolution; claims without an open deadline last), always in the 8.1 envelope with keyset
    `cursor`. For its members (managers and agents) and admins; 404 for anyone else. Filters `status`,
    `assigned` (`me`, `none`, `any`), `agentId`, `brand` (any case) and `q` (part of the description or
    of the product's name, any case)."""
    if not 1 <= organization_id <= MAX_ID:
        raise organization_not_found()
    membership = await require_member(queue.session, user, organization_id)
    if membership is None and not await queue.organization_exists(organization_id):
        raise organization_not_found()  # an admin naming no organization
    after = params.after_key(QUEUE_KEY)
    found, total = await queue.page(
        organization_id, where, user.id, offset=params.offset, limit=params.fetch, after=after, sort=sort
    )
    if sort == "due":
        rows, next_cursor = params.window(found, lambda row: (row.sla_next_due_at, row.id))
    else:
        rows, next_cursor = params.window(found, lambda row: (row.created_at, row.id))
    items = [QueueItem.of(row) for row in rows]
    body = list_json(QUEUE_JSON(items), len(items), total, params, request, next_cursor)
    return Response(body, media_type="application/json")


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
