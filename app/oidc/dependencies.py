"""The sign-in routes' own request dependency: the configured providers. Only route modules import it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.oidc.registry import Providers


async def configured_providers(request: Request) -> Providers:
    providers: Providers = request.app.state.oidc_providers
    return providers


ProvidersDep = Annotated[Providers, Depends(configured_providers)]
