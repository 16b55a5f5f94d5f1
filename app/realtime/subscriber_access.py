"""Who may subscribe: credentials in Mercure's order, and the claims behind the topics."""

from __future__ import annotations

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.claims import visible_claims
from app.access.credentials import check_credentials
from app.config import Settings
from app.core.security import AccessTokenPayload, decode_access_token
from app.errors import Forbidden, Unauthorized
from app.models import Claim, User
from app.observability import request_context
from app.observability.query_token import query_token

HUB_COOKIE = "mercureAuthorization"


def find_token(request: Request) -> str:
    """First found wins: `Authorization: Bearer` header, `authorization` query parameter, then the
    `mercureAuthorization` cookie. None -> 401; never an anonymous stream."""
    header = request.headers.get("authorization")
    if header is not None:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("Use Authorization: Bearer <token>.", code="AUTH_TOKEN_INVALID")
        return token.strip()
    query = query_token(request.scope)  # lifted out of the query string (app.observability.query_token)
    if query is not None:
        token = query.removeprefix("Bearer ").strip()
        if not token:
            raise Unauthorized("The authorization parameter is empty.", code="AUTH_TOKEN_INVALID")
        return token
    cookie = request.cookies.get(HUB_COOKIE)
    if cookie:
        return cookie
    raise Unauthorized("Sign in first: send a Bearer token or the mercureAuthorization cookie.")


async def authenticate(
    session: AsyncSession, settings: Settings, token: str
) -> tuple[User, AccessTokenPayload]:
    payload = decode_access_token(settings, token)
    user = check_credentials(payload, await session.get(User, payload.user_id))
    request_context.set_user(user.id)
    return user, payload


async def visible_claim_ids(session: AsyncSession, user: User, claim_ids: set[int]) -> set[int]:
    """Which of `claim_ids` the user may see: one query, whatever the number of topics."""
    statement = visible_claims(user).with_only_columns(Claim.id).where(Claim.id.in_(claim_ids))
    return set(await session.scalars(statement))


async def require_visible(session: AsyncSession, user: User, claim_ids: set[int]) -> None:
    """403 when a topic names a claim the user may not see (or one that does not exist)."""
    if await visible_claim_ids(session, user, claim_ids) != claim_ids:
        raise Forbidden("You may not subscribe to a claim you are not part of.")
