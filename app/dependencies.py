"""Every request dependency in one place: the `Annotated` aliases routes declare (`SessionDep`,
`CurrentUser`, `VisibleClaim`, `Pagination`, ...) and the functions that build them from the request.

Only routes (`router.py`, `routes/`) import this module; the packages below it know nothing of FastAPI's
dependency injection. Every dependency here is `async def`: FastAPI runs a plain `def` dependency (and a
class used as one) in its threadpool, a thread hop per request for nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, TypeVar

from fastapi import Depends, Path, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.claims import get_visible_claim
from app.access.credentials import user_for
from app.api.client_address import client_address
from app.api.pagination import PageParams, parse_page_params
from app.auth.throttle import Throttle, get_throttle
from app.auth.tokens import RefreshTokenRepository
from app.calendar.repository import CalendarRepository
from app.claims.repository import ClaimFilter, ClaimRepository
from app.config import Settings
from app.core.db import get_session, use_one_snapshot
from app.core.ids import DIGITS_ONLY, MAX_ID
from app.core.repository import Repository
from app.core.security import AccessTokenPayload, PasswordHasher, decode_access_token
from app.errors import Forbidden, NotFound, Unauthorized, ValidationFailed
from app.messages.repository import MessageFilter, MessageRepository
from app.models import Claim, Product, Receipt, User
from app.models.enums import ClaimStatusName, Role
from app.notifications.repository import DeviceTokenRepository
from app.outbox.repository import OutboxRepository
from app.pagecache.cached_pages import PageRequest
from app.products.receipts import ReceiptRepository
from app.products.repository import SORT_COLUMNS, ProductFilter, ProductRepository, ProductSort
from app.products.warranty import WarrantyStatus
from app.storage.storage import Storage, get_storage
from app.users.repository import UserFilter, UserRepository
from app.users.schemas import RoleName
from app.users.service import get_or_404
from app.webhooks.repository import DeliveryRepository, WebhookRepository

R = TypeVar("R", bound=Repository)
SORT_ORDERS = ("asc", "desc")

# --- The process's objects (built once by the lifespan, kept on app.state) and the transaction

# scope="function": the commit runs before the response is sent, so its failure is the client's 5xx.
SessionDep = Annotated[AsyncSession, Depends(get_session, scope="function")]


async def app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def password_hasher(request: Request) -> PasswordHasher:
    hasher: PasswordHasher = request.app.state.password_hasher
    return hasher


SettingsDep = Annotated[Settings, Depends(app_settings)]
HasherDep = Annotated[PasswordHasher, Depends(password_hasher)]
StorageDep = Annotated[Storage, Depends(get_storage)]
ThrottleDep = Annotated[Throttle, Depends(get_throttle)]


async def get_client_address(request: Request, settings: SettingsDep) -> str:
    """The caller's address, the one every throttle counts by (app/api/client_address.py)."""
    return client_address(
        request.client.host if request.client else None,
        request.headers.getlist("x-forwarded-for"),
        settings.trusted_proxy_networks,
    )


ClientAddress = Annotated[str, Depends(get_client_address)]


async def one_snapshot(session: SessionDep) -> None:
    """Route dependency (`dependencies=[ONE_SNAPSHOT]`): every read of the request sees one snapshot
    (app.core.db.use_one_snapshot, app.realtime.resume)."""
    await use_one_snapshot(session)


ONE_SNAPSHOT = Depends(one_snapshot)

# --- Repositories: built on the event loop, on the request's session


def _repository(cls: type[R]) -> Callable[[AsyncSession], Awaitable[R]]:
    async def repository(session: SessionDep) -> R:
        return cls(session)

    return repository


async def refresh_token_repository(session: SessionDep, settings: SettingsDep) -> RefreshTokenRepository:
    return RefreshTokenRepository(session, settings)


CalendarRepo = Annotated[CalendarRepository, Depends(_repository(CalendarRepository))]
ClaimRepo = Annotated[ClaimRepository, Depends(_repository(ClaimRepository))]
DeliveryRepo = Annotated[DeliveryRepository, Depends(_repository(DeliveryRepository))]
DeviceTokenRepo = Annotated[DeviceTokenRepository, Depends(_repository(DeviceTokenRepository))]
MessageRepo = Annotated[MessageRepository, Depends(_repository(MessageRepository))]
OutboxRepo = Annotated[OutboxRepository, Depends(_repository(OutboxRepository))]
ProductRepo = Annotated[ProductRepository, Depends(_repository(ProductRepository))]
ReceiptRepo = Annotated[ReceiptRepository, Depends(_repository(ReceiptRepository))]
RefreshTokenRepo = Annotated[RefreshTokenRepository, Depends(refresh_token_repository)]
UserRepo = Annotated[UserRepository, Depends(_repository(UserRepository))]
WebhookRepo = Annotated[WebhookRepository, Depends(_repository(WebhookRepository))]

# --- Who is calling: roles come from the database, not the token, so a role change or a deleted account
# takes effect on the next request.

_bearer = HTTPBearer(auto_error=False, description="The access token from POST /api/login.")


async def current_token_payload(
    settings: SettingsDep, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> AccessTokenPayload:
    if credentials is None:
        raise Unauthorized("Send an access token: Authorization: Bearer <token>.")
    return decode_access_token(settings, credentials.credentials)


CurrentTokenPayload = Annotated[AccessTokenPayload, Depends(current_token_payload)]


async def current_user(payload: CurrentTokenPayload, session: SessionDep) -> User:
    return await user_for(payload, session)


CurrentUser = Annotated[User, Depends(current_user)]


async def admin_user(user: CurrentUser) -> User:
    if Role.ADMIN not in user.effective_roles:
        raise Forbidden("This needs the ROLE_ADMIN role.")
    return user


AdminUser = Annotated[User, Depends(admin_user)]

# --- Lists: page parameters and the page cache


async def page_params(
    request: Request,
    user: CurrentUser,
    # Declared as text for the OpenAPI document; parsed by hand for the documented error codes.
    page: Annotated[str | None, Query(description="1-based page; with `limit`, answers the envelope")] = None,
    limit: Annotated[
        str | None, Query(description="items per page, 1..100 (lowered to 50 for non-admins)")
    ] = None,
    cursor: Annotated[
        str | None,
        Query(description="`meta.next_cursor` of the previous page: the page after it (instead of `page`)"),
    ] = None,
) -> PageParams:
    return parse_page_params(request, admin=Role.ADMIN in user.effective_roles)


Pagination = Annotated[PageParams, Depends(page_params)]


async def page_request(request: Request, session: SessionDep, user: CurrentUser) -> PageRequest:
    return PageRequest(request.app.state.page_cache, request, session, user)


CachedPages = Annotated[PageRequest, Depends(page_request)]

# --- What a path names, loaded if the caller may see it (404 alike for missing and not yours)


async def visible_claim(
    claim_id: Annotated[int, Path(alias="claimId", description="The claim's id."), DIGITS_ONLY],
    user: CurrentUser,
    session: SessionDep,
) -> Claim:
    return await get_visible_claim(session, user, claim_id)


async def visible_claim_by_id(
    claim_id: Annotated[int, Path(alias="id", description="The claim's id."), DIGITS_ONLY],
    user: CurrentUser,
    session: SessionDep,
) -> Claim:
    return await get_visible_claim(session, user, claim_id)


# `/api/claims/{claimId}/...` (messages API) and `/api/claims/{id}/...` (claims API).
VisibleClaim = Annotated[Claim, Depends(visible_claim)]
VisibleClaimById = Annotated[Claim, Depends(visible_claim_by_id)]


@dataclass
class Visible:
    product: Product
    has_active_claim: bool


async def visible_product(
    product_id: Annotated[int, Path(alias="id", description="The product's id."), DIGITS_ONLY],
    user: CurrentUser,
    products: ProductRepo,
) -> Visible:
    found = await products.get_visible(user, product_id)
    if found is None:
        raise NotFound("No such product.")
    return Visible(*found)


VisibleProduct = Annotated[Visible, Depends(visible_product)]


async def visible_receipt(
    visible: VisibleProduct,
    receipt_id: Annotated[int, Path(alias="receiptId", description="The receipt's id."), DIGITS_ONLY],
    receipts: ReceiptRepo,
) -> Receipt:
    receipt = await receipts.get(visible.product.id, receipt_id)
    if receipt is None:
        raise NotFound("No such receipt.")
    return receipt


VisibleReceipt = Annotated[Receipt, Depends(visible_receipt)]

UserId = Annotated[int, Path(ge=1, le=MAX_ID, description="The user's id."), DIGITS_ONLY]


async def visible_user(user_id: UserId, caller: CurrentUser, users: UserRepo) -> User:
    """The user at /api/users/{id}: an admin gets anyone (404 when there is none); anyone else only
    themselves (403 for other ids, whether or not they exist)."""
    if caller.id == user_id:
        return caller
    if Role.ADMIN not in caller.effective_roles:
        raise Forbidden("You may only see your own account.")
    return await get_or_404(users, user_id)


VisibleUser = Annotated[User, Depends(visible_user)]

# --- List filters from the query


async def claim_filter(
    status: Annotated[ClaimStatusName | None, Query(description="Only claims in this status.")] = None,
    product_id: Annotated[int | None, Query(alias="productId", ge=1, le=MAX_ID), DIGITS_ONLY] = None,
) -> ClaimFilter:
    return ClaimFilter(status=status, product_id=product_id)


async def message_filter(
    claim_id: Annotated[int | None, Query(alias="claimId", ge=1, le=MAX_ID), DIGITS_ONLY] = None,
    sender_id: Annotated[int | None, Query(alias="senderId", ge=1, le=MAX_ID), DIGITS_ONLY] = None,
    unread: Annotated[
        bool | None, Query(description="true: not yet read by any recipient; false: read by one.")
    ] = None,
) -> MessageFilter:
    return MessageFilter(claim_id=claim_id, sender_id=sender_id, unread=unread)


async def product_filter(
    brand: Annotated[str | None, Query(max_length=100, description="Exactly this brand, any case.")] = None,
    category: Annotated[
        str | None, Query(max_length=100, description="Exactly this category, any case.")
    ] = None,
    warranty_status: Annotated[
        WarrantyStatus | None, Query(alias="warrantyStatus", description="The status today.")
    ] = None,
    search: Annotated[
        str | None, Query(max_length=255, description="Part of the name, brand or serial number, any case.")
    ] = None,
) -> ProductFilter:
    def clean(value: str | None) -> str | None:
        return (value or "").strip() or None  # blank means no filter

    return ProductFilter(
        brand=clean(brand), category=clean(category), warranty_status=warranty_status, search=clean(search)
    )


async def product_sort(
    sort: Annotated[
        str | None, Query(description="name, brand, purchaseDate, warrantyExpiresAt or createdAt (default).")
    ] = None,
    order: Annotated[str | None, Query(description="asc or desc (default).")] = None,
) -> ProductSort:
    field = "createdAt" if sort is None else sort.strip()
    direction = "desc" if order is None else order.strip().lower()
    if field not in SORT_COLUMNS or direction not in SORT_ORDERS:
        raise ValidationFailed(
            f"sort must be one of {', '.join(SORT_COLUMNS)}; order asc or desc.",
            code="VALIDATION_INVALID_SORT",
            details={"allowedSort": list(SORT_COLUMNS), "allowedOrder": list(SORT_ORDERS)},
        )
    return ProductSort(field, direction)


async def user_filter(
    search: Annotated[
        str | None, Query(max_length=255, description="Part of the name or email, any case.")
    ] = None,
    role: Annotated[
        RoleName | None,
        Query(description="Users whose `roles` list holds this role (as stored, not by hierarchy)."),
    ] = None,
) -> UserFilter:
    return UserFilter(search=(search or "").strip() or None, role=role)


ClaimQuery = Annotated[ClaimFilter, Depends(claim_filter)]
MessageQuery = Annotated[MessageFilter, Depends(message_filter)]
ProductQuery = Annotated[ProductFilter, Depends(product_filter)]
ProductOrder = Annotated[ProductSort, Depends(product_sort)]
UserQuery = Annotated[UserFilter, Depends(user_filter)]
