"""The single-page app's sign-in through a provider (contract 18.2): start, callback, exchange."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from functools import partial
from typing import Any

import anyio
from authlib.common.urls import add_params_to_uri
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.auth.service import SignedIn, sign_in
from app.auth.tokens import RefreshTokenRepository
from app.config import OidcProvider, Settings
from app.core.one_line import one_line
from app.core.security import constant_time_equals
from app.errors import Conflict, ValidationFailed
from app.oidc import login_codes
from app.oidc.accounts import account_for
from app.oidc.flow_cookie import Flow, callback_path, new_expiry
from app.oidc.id_token import UnknownKey, verify_id_token
from app.oidc.metadata import Metadata
from app.oidc.outcomes import Outcome, SignInFailed
from app.oidc.redirects import is_allowed, with_params
from app.oidc.registry import Providers
from app.oidc.token_endpoint import redeem_code
from app.users.repository import UserRepository


@dataclass(frozen=True)
class Started:
    authorization_url: str
    flow: Flow


def redirect_uri(settings: Settings, provider: str) -> str:
    """The callback URL registered at the provider: `{WARRANTY_BASE_URL}/api/auth/oidc/{name}/callback`."""
    return settings.base_url.rstrip("/") + callback_path(provider)


async def start(providers: Providers, settings: Settings, name: str, redirect: str) -> Started:
    provider = providers.config(name)  # 404 for a name not configured
    if not is_allowed(redirect, settings.oidc_redirects):
        raise ValidationFailed.field(
            "redirect", "is not one of the addresses this service may send you back to"
        )
    metadata = await providers.metadata(name)  # 503 while the provider cannot be reached
    flow = Flow(
        provider=name,
        state=secrets.token_urlsafe(32),
        nonce=secrets.token_urlsafe(32),
        verifier=secrets.token_urlsafe(48),  # 64 characters: RFC 7636 asks for 43 to 128
        redirect=redirect,
        expires=new_expiry(),
    )
    url = add_params_to_uri(
        metadata.authorization_endpoint,
        [
            ("response_type", "code"),
            ("client_id", provider.client_id),
            ("redirect_uri", redirect_uri(settings, name)),
            ("scope", " ".join(provider.scopes)),
            ("state", flow.state),
            ("nonce", flow.nonce),
            ("code_challenge", create_s256_code_challenge(flow.verifier)),
            ("code_challenge_method", "S256"),
        ],
    )
    return Started(authorization_url=url, flow=flow)


@dataclass(frozen=True)
class CallbackParams:
    code: str | None
    state: str | None
    error: str | None


async def callback(
    providers: Providers,
    settings: Settings,
    sessionmaker: async_sessionmaker[AsyncSession],
    flow: Flow,
    params: CallbackParams,
) -> str:
    """Where the browser goes next: the flow's redirect with a one-time `code`. SignInFailed otherwise."""
    if params.error is not None:  # believed without a state too: it signs no one in
        raise SignInFailed(
            Outcome.ACCESS_DENIED, f"the provider answered error={one_line(params.error[:64])}"
        )
    if not params.state or not constant_time_equals(params.state, flow.state):
        raise SignInFailed(Outcome.INVALID_STATE, "the state is not this browser's")
    if not params.code:
        raise SignInFailed(Outcome.INVALID_CODE, "the provider sent no code")
    provider = providers.config(flow.provider)
    metadata = await providers.metadata(flow.provider)
    raw = await redeem_code(
        providers.client,
        provider,
        metadata,
        code=params.code,
        verifier=flow.verifier,
        redirect_uri=redirect_uri(settings, flow.provider),
    )
    claims = await verified_claims(providers, flow.provider, metadata, raw, flow.nonce)
    return with_params(flow.redirect, code=await _code_for(sessionmaker, provider, claims))


async def _code_for(
    sessionmaker: async_sessionmaker[AsyncSession], provider: OidcProvider, claims: dict[str, Any]
) -> str:
    """The account's one-time code, in a write transaction of its own (a GET's session only reads), after
    the provider's round trips. A concurrent first sign-in of the same user (the link or the email taken
    meanwhile) is answered by trying once more, which then finds the account."""
    try:
        return await _issue_code(sessionmaker, provider, claims)
    except (Conflict, IntegrityError):
        return await _issue_code(sessionmaker, provider, claims)


async def _issue_code(
    sessionmaker: async_sessionmaker[AsyncSession], provider: OidcProvider, claims: dict[str, Any]
) -> str:
    async with sessionmaker() as session, session.begin():
        user = await account_for(session, provider, claims)
        return await login_codes.issue(session, user.id)


async def verified_claims(
    providers: Providers, name: str, metadata: Metadata, raw: str, nonce: str
) -> dict[str, Any]:
    """The ID token's claims, verified off the event loop; the keys fetched again once for a new key."""
    provider = providers.config(name)
    verify = partial(
        verify_id_token,
        raw,
        issuer=provider.issuer,
        client_id=provider.client_id,
        nonce=nonce,
        algorithms=metadata.algorithms,
    )
    try:
        return await anyio.to_thread.run_sync(partial(verify, metadata.keys))
    except UnknownKey:
        keys = await providers.fresh_keys(name)
    try:
        if keys is not None:
            return await anyio.to_thread.run_sync(partial(verify, keys))
    except UnknownKey:
        pass
    raise SignInFailed(
        Outcome.INVALID_ID_TOKEN, "the ID token is signed by a key the provider does not publish"
    )


async def exchange(
    session: AsyncSession, code: str, *, settings: Settings, refresh_tokens: RefreshTokenRepository
) -> SignedIn:
    """The one-time code traded for what `POST /api/login` answers."""
    user_id = await login_codes.spend(session, code)
    user = await UserRepository(session).get(user_id)
    if user is None:
        raise ValidationFailed.field("code", "is not valid: it is unknown, expired or already used")
    return await sign_in(user, settings=settings, refresh_tokens=refresh_tokens)
