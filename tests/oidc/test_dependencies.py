"""The routes' providers dependency answers the app's configured providers."""

from __future__ import annotations

from fastapi import FastAPI
from starlette.requests import Request

from app.oidc.dependencies import configured_providers


async def test_the_providers_are_the_apps(app: FastAPI) -> None:
    request = Request({"type": "http", "app": app})
    assert await configured_providers(request) is app.state.oidc_providers
    assert list(app.state.oidc_providers.configs) == ["mock", "invite-only", "down"]
