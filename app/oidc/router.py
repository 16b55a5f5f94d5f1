"""Sign-in through an OpenID Connect provider from a single-page app (contract 18; docs/api.md)."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.responses import RedirectResponse

from app.api.dependencies import SessionDep, SettingsDep
from app.api.openapi import errors
from app.auth.dependencies import RefreshTokenRepo
from app.auth.router import set_hub_cookie
from app.auth.schemas import LoginResponse
from app.config import Settings
from app.errors import ValidationFailed
from app.oidc import service
from app.oidc.dependencies import ProvidersDep
from app.oidc.flow_cookie import COOKIE, LIFETIME, Flow, callback_path, open_flow, seal
from app.oidc.outcomes import SignInFailed
from app.oidc.redirects import with_params
from app.oidc.schemas import OidcExchange, ProviderOut, ProvidersOut

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/api/auth", tags=["auth"])

ProviderName = Annotated[str, Path(max_length=64, description="A name from `GET /api/auth/providers`.")]


def _redirect(description: str, example: str) -> dict[int | str, dict[str, Any]]:
    return {
        302: {
            "description": description,
            "headers": {"Location": {"schema": {"type": "string"}, "example": example}},
        }
    }


@router.get("/providers", response_model=ProvidersOut)
async def list_providers(providers: ProvidersDep) -> ProvidersOut:
    """The identity providers one may sign in with, by name (`WARRANTY_OIDC_PROVIDERS`; nothing else of
    their settings)."""
    return ProvidersOut(providers=[ProviderOut(name=name) for name in providers.configs])


@router.get(
    "/oidc/{name}/start",
    response_class=RedirectResponse,
    status_code=302,
    responses={
        **_redirect(
            "To the provider's authorization endpoint (code flow, PKCE S256, `state` and `nonce`), with "
            "the sign-in's cookie (HttpOnly, SameSite=Lax, Path the callback, 10 minutes).",
            "https://id.example.com/authorize?response_type=code&client_id=warranty&redirect_uri=...&"
            "scope=openid+email+profile&state=...&nonce=...&code_challenge=...&code_challenge_method=S256",
        ),
        **errors(400, 404, 503),
    },
)
async def start_sign_in(
    name: ProviderName,
    redirect: Annotated[str, Query(max_length=2048, description="Where the app wants the browser back.")],
    providers: ProvidersDep,
    settings: SettingsDep,
) -> RedirectResponse:
    """Start a sign-in through the provider: the browser is sent to the provider. `redirect` must start
    with one of `WARRANTY_OIDC_REDIRECTS` (compared as URLs: same origin, path at a `/` boundary), else
    400; a provider that cannot be reached is 503 with Retry-After; an unknown name 404."""
    started = await service.start(providers, settings, name, redirect)
    response = RedirectResponse(started.authorization_url, status_code=302)
    _set_flow_cookie(response, settings, started.flow)
    return response


@router.get(
    "/oidc/{name}/callback",
    response_class=RedirectResponse,
    status_code=302,
    responses={
        **_redirect(
            "Back to the app's `redirect`, with `code` (one-time, 60 s) on success or `error` "
            "(access_denied, invalid_state, invalid_code, invalid_id_token, email_unverified, "
            "not_registered).",
            "https://app.example.com/signed-in?code=pR1v4T3oNeT1mEc0dE",
        ),
        **errors(400, 404, 503),
    },
)
async def finish_sign_in(
    request: Request,
    name: ProviderName,
    providers: ProvidersDep,
    settings: SettingsDep,
    code: Annotated[str | None, Query(max_length=4096)] = None,
    state: Annotated[str | None, Query(max_length=512)] = None,
    error: Annotated[str | None, Query(max_length=256)] = None,
) -> RedirectResponse:
    """Where the provider sends the browser back. The code is redeemed, the ID token verified, the
    account found, linked or created, and the browser sent to the app with a one-time `code` (never a
    token). A browser with no sign-in waiting here (no or expired cookie) is 400."""
    flow = open_flow(settings, request.cookies.get(COOKIE), name)
    if flow is None:
        raise ValidationFailed.field("state", "no sign-in of this browser is waiting here; start again")
    params = service.CallbackParams(code=code, state=state, error=error)
    try:
        target = await service.callback(providers, settings, request.app.state.sessionmaker, flow, params)
    except SignInFailed as failed:
        logger.warning("sign-in through %s failed: %s", name, failed.reason)
        target = with_params(flow.redirect, error=failed.outcome.value)
    response = RedirectResponse(target, status_code=302)
    response.delete_cookie(COOKIE, path=callback_path(name), secure=settings.cookie_secure, httponly=True)
    response.headers["Cache-Control"] = "no-store"
    return response


@router.post("/oidc/exchange", response_model=LoginResponse, responses=errors(400))
async def exchange_code(
    body: OidcExchange,
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    refresh_tokens: RefreshTokenRepo,
) -> LoginResponse:
    """Trade the one-time `code` of the final redirect for what `POST /api/login` answers: tokens, the
    user, and the hub cookie. A code works once and for 60 seconds: otherwise 400 on `code`."""
    signed_in = await service.exchange(session, body.code, settings=settings, refresh_tokens=refresh_tokens)
    set_hub_cookie(response, signed_in.token, settings)
    return LoginResponse.model_validate(
        {"token": signed_in.token, "refresh_token": signed_in.refresh_token, "user": signed_in.user}
    )


def _set_flow_cookie(response: Response, settings: Settings, flow: Flow) -> None:
    response.set_cookie(
        COOKIE,
        seal(settings, flow),
        max_age=LIFETIME,
        path=callback_path(flow.provider),
        httponly=True,
        secure=settings.cookie_secure,
        samesite="lax",
    )
    response.headers["Cache-Control"] = "no-store"
