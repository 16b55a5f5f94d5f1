from __future__ import annotations

from fastapi import APIRouter, Response, status

from app.api.dependencies import (
    ClientAddress,
    CurrentTokenPayload,
    CurrentUser,
    HasherDep,
    SessionDep,
    SettingsDep,
)
from app.api.openapi import errors
from app.auth import service
from app.auth.dependencies import RefreshTokenRepo, ThrottleDep
from app.auth.schemas import (
    LoginRequest,
    LoginResponse,
    PasswordChange,
    PasswordForgot,
    PasswordReset,
    RefreshRequest,
    TokenPair,
)
from app.config import Settings
from app.models import User
from app.users.dependencies import UserRepo
from app.users.schemas import UserOut, UserRegister

router = APIRouter(prefix="/api", tags=["auth"])

HUB_COOKIE = "mercureAuthorization"


def set_hub_cookie(response: Response, token: str, settings: Settings) -> None:
    response.set_cookie(
        HUB_COOKIE,
        token,
        max_age=settings.access_token_ttl,
        path="/",
        httponly=True,
        secure=settings.cookie_secure,
        samesite=settings.cookie_samesite,
    )


@router.post("/login", response_model=LoginResponse, responses=errors(400, 401, 429))
async def login(
    body: LoginRequest,
    response: Response,
    client: ClientAddress,
    settings: SettingsDep,
    hasher: HasherDep,
    throttle: ThrottleDep,
    users: UserRepo,
    refresh_tokens: RefreshTokenRepo,
) -> LoginResponse:
    """Sign in with email and password. Answers an access token, a refresh token and the user, and sets
    the `mercureAuthorization` cookie the real-time hub reads. Repeated failures are throttled (429)."""
    signed_in = await service.login(
        body.email,
        body.password,
        client,
        settings=settings,
        hasher=hasher,
        throttle=throttle,
        users=users,
        refresh_tokens=refresh_tokens,
    )
    set_hub_cookie(response, signed_in.token, settings)
    return LoginResponse.model_validate(
        {"token": signed_in.token, "refresh_token": signed_in.refresh_token, "user": signed_in.user}
    )


@router.post("/token/refresh", response_model=TokenPair, responses=errors(400, 401))
async def refresh_token(
    body: RefreshRequest,
    response: Response,
    settings: SettingsDep,
    users: UserRepo,
    refresh_tokens: RefreshTokenRepo,
) -> TokenPair:
    """Trade a refresh token for a new access token and a new refresh token. The used refresh token stops
    working; using it again revokes every token of that sign-in."""
    token, new_refresh = await service.refresh(
        body.refresh_token, settings=settings, users=users, refresh_tokens=refresh_tokens
    )
    set_hub_cookie(response, token, settings)
    return TokenPair(token=token, refresh_token=new_refresh)


@router.post("/logout", status_code=status.HTTP_204_NO_CONTENT, responses=errors(400))
async def logout(body: RefreshRequest, response: Response, refresh_tokens: RefreshTokenRepo) -> None:
    """Revoke a refresh token and clear the hub cookie."""
    await refresh_tokens.revoke(body.refresh_token)
    response.delete_cookie(HUB_COOKIE, path="/")


@router.post(
    "/register",
    status_code=status.HTTP_201_CREATED,
    response_model=UserOut,
    responses=errors(400, 403, 409, 429),
)
async def register(
    body: UserRegister,
    response: Response,
    client: ClientAddress,
    settings: SettingsDep,
    hasher: HasherDep,
    throttle: ThrottleDep,
    users: UserRepo,
) -> User:
    """Create an account with ROLE_USER (403 when registration is switched off). At most
    `WARRANTY_REGISTER_MAX_PER_CLIENT` (10) registrations per client address per
    `WARRANTY_REGISTER_WINDOW` (1 hour), answered or not; beyond, 429 with Retry-After."""
    user = await service.register(
        body.email,
        body.password,
        body.name,
        client,
        settings=settings,
        hasher=hasher,
        throttle=throttle,
        users=users,
    )
    response.headers["Location"] = f"/api/users/{user.id}"
    return user


@router.post("/me/password", status_code=status.HTTP_204_NO_CONTENT, responses=errors(400, 401))
async def change_password(
    body: PasswordChange,
    user: CurrentUser,
    payload: CurrentTokenPayload,
    hasher: HasherDep,
    refresh_tokens: RefreshTokenRepo,
) -> None:
    """Change the signed-in user's password. Ends the user's other sign-ins (their refresh tokens)."""
    await service.change_password(
        user,
        body.current_password,
        body.new_password,
        payload.session_family,
        hasher=hasher,
        refresh_tokens=refresh_tokens,
    )


@router.post("/password/forgot", status_code=status.HTTP_202_ACCEPTED, responses=errors(400, 429))
async def forgot_password(
    body: PasswordForgot, session: SessionDep, client: ClientAddress, throttle: ThrottleDep
) -> Response:
    """Ask for a password reset link by email. Always 202, whether or not the address has an account (so
    the answer reveals nothing); the email, when there is an account, carries a link to
    `{frontend_url}/reset-password?token=...` valid for `WARRANTY_PASSWORD_RESET_TTL` seconds (1 hour).
    At most one email per account per minute, and `WARRANTY_PASSWORD_FORGOT_MAX_PER_CLIENT` (5) requests
    per client address per `WARRANTY_PASSWORD_FORGOT_WINDOW` (15 minutes): beyond, 429 with Retry-After."""
    await service.forgot_password(session, body.email, client, throttle=throttle)
    return Response(status_code=status.HTTP_202_ACCEPTED)


@router.post("/password/reset", status_code=status.HTTP_204_NO_CONTENT, responses=errors(400))
async def reset_password(
    body: PasswordReset, hasher: HasherDep, users: UserRepo, refresh_tokens: RefreshTokenRepo
) -> None:
    """Set a new password with the token from a reset email. The token works once and for one hour; an
    unknown, expired or used token is 400 VALIDATION_FAILED on `token`. Every sign-in of the user ends
    (refresh tokens revoked) and the user's other reset links stop working."""
    await service.reset_password(
        body.token, body.password, hasher=hasher, users=users, refresh_tokens=refresh_tokens
    )
