"""The auth routes' own request dependencies: refresh tokens and the login throttle. Only route modules
import it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from app.api.dependencies import SessionDep, SettingsDep
from app.auth.throttle import Throttle, get_throttle
from app.auth.tokens import RefreshTokenRepository

ThrottleDep = Annotated[Throttle, Depends(get_throttle)]


async def refresh_token_repository(session: SessionDep, settings: SettingsDep) -> RefreshTokenRepository:
    return RefreshTokenRepository(session, settings)


RefreshTokenRepo = Annotated[RefreshTokenRepository, Depends(refresh_token_repository)]
