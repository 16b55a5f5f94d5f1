"""Who may subscribe (contract 6 and 20): credentials in Mercure's order, the claims behind the service's
topics, and what a Mercure subscriber's token grants.

A token is, first, the service's own access token (a user: the claim topics they may see, and public
updates); else, when WARRANTY_MERCURE_SUBSCRIBER_KEY is set, a Mercure subscriber token (public updates,
and private ones on the topics it grants `subscribe` on; never a claim topic). No token: an anonymous
subscriber of public updates when WARRANTY_MERCURE_ANONYMOUS is true, else 401 as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

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
from app.realtime.matchers import Matcher
from app.realtime.mercure_tokens import decode_grants

# Read in this order when there is no Authorization header: the released protocol's, then the draft's.
HUB_COOKIE = "mercureAuthorization"
DRAFT_COOKIE = "mercureAccessToken"


@dataclass(frozen=True)
class Identity:
    """A subscriber as the hub knows it: a user (the service's token), or a Mercure subscriber."""

    user: User | None = None
    credential_version: int = 0
    expires_at: datetime | None = None  # None: no expiry (an anonymous subscriber, a token without exp)
    grants: tuple[Matcher, ...] = ()  # topics of private updates it may receive


def find_token(request: Request) -> str | None:
    """First found wins: `Authorization: Bearer` header, `authorization` query parameter, then the
    `mercureAuthorization` and `mercureAccessToken` cookies (with a header, cookies are never read). The
    draft's `access_token` query parameter is not a credential (app.observability.query_token keeps it out
    of every log). None when there is none."""
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
    return request.cookies.get(HUB_COOKIE) or request.cookies.get(DRAFT_COOKIE) or None


async def identify(
    session: AsyncSession, settings: Settings, token: str | None, claim_ids: set[int]
) -> Identity:
    """The subscriber behind `token`, allowed to subscribe to the claims `claim_ids` (401, 403 otherwise)."""
    if token is None:
        if claim_ids or not settings.mercure_anonymous:
            raise Unauthorized("Sign in first: send a Bearer token or the mercureAuthorization cookie.")
        return Identity()
    try:
        user, payload = await authenticate(session, settings, token)
    except Unauthorized as refused:
        key = settings.mercure_subscriber_key
        if key is None:
            raise
        try:
            identity = _mercure_subscriber(settings, key.get_secret_value(), token)
        except Unauthorized:
            raise refused from None
        if claim_ids:
            raise Forbidden("Only the service's own token subscribes to claims.") from None
        return identity
    await require_visible(session, user, claim_ids)
    return Identity(user, payload.credential_version, payload.expires_at)


def _mercure_subscriber(settings: Settings, key: str, token: str) -> Identity:
    grants = decode_grants(token, key, settings.hub_resource, settings.hub_resource)
    expires = datetime.fromtimestamp(grants.expires_at, UTC) if grants.expires_at is not None else None
    return Identity(expires_at=expires, grants=grants.subscribe)


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
    if claim_ids and await visible_claim_ids(session, user, claim_ids) != claim_ids:
        raise Forbidden("You may not subscribe to a claim you are not part of.")
