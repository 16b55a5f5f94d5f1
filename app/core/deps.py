"""Dependencies for the objects the lifespan builds once per process (kept on app.state).

Every dependency in this service is `async def`: FastAPI runs a plain `def` dependency (and a class used
as one) in its threadpool, a thread hop per request for nothing."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.config import Settings
from app.core.client_address import client_address
from app.core.security import PasswordHasher


async def app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_password_hasher(request: Request) -> PasswordHasher:
    hasher: PasswordHasher = request.app.state.password_hasher
    return hasher


SettingsDep = Annotated[Settings, Depends(app_settings)]
HasherDep = Annotated[PasswordHasher, Depends(get_password_hasher)]


async def get_client_address(request: Request, settings: SettingsDep) -> str:
    """The caller's address, the one every throttle counts by (app/core/client_address.py)."""
    return client_address(
        request.client.host if request.client else None,
        request.headers.getlist("x-forwarded-for"),
        settings.trusted_proxy_networks,
    )


ClientAddress = Annotated[str, Depends(get_client_address)]
