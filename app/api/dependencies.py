"""The request dependencies every domain's routes share: the `Annotated` aliases they declare (`SessionDep`,
`CurrentUser`, `VisibleClaim`, `Pagination`, ...), the functions that build them from the request, and
`repository(cls)` for a domain's own repository aliases (each domain's `dependencies.py`, beside its
routes). FastAPI caches a request's dependencies by function, so each alias is defined once and imported
from here.

Only routes (`router.py`, `routes/`) and the domains' `dependencies.py` import this module; the packages
below it know nothing of FastAPI's dependency injection. Every dependency here is `async def`: FastAPI runs
a plain `def` dependency (and a class used as one) in its threadpool, a thread hop per request for
nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

from fastapi import Depends, Path, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.claims import get_visible_claim
from app.access.credentials import user_for
from app.api.client_address import client_address
from app.api.pagination import PageParams, parse_page_params
from app.config import Settings
from app.core.db import get_session, use_one_snapshot
from app.core.ids import DIGITS_ONLY
from app.core.repository import Repository
from app.core.security import AccessTokenPayload, PasswordHasher, decode_access_token
from app.errors import Forbidden, Unauthorized
from app.models import Claim, User
from app.models.enums import Role
from app.pagecache.cached_pages import PageRequest
from app.storage.storage import Storage, get_storage

R = TypeVar("R", bound=Repository)

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


def repository(cls: type[R]) -> Callable[[AsyncSession], Awaitable[R]]:
    """The dependency that builds a `cls` on the request's session (`Depends(repository(ClaimRepository))`,
    once per alias: FastAPI caches a request's dependencies by function)."""

    async def build(session: SessionDep) -> R:
        return cls(session)

    return build


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
