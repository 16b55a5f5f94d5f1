"""The configured providers with their metadata cached (app.oidc.registry), against the real provider and
one that cannot be reached."""

from __future__ import annotations

import httpx
import pytest

from app.config import OidcProvider
from app.errors import NotFound
from app.oidc.fetch import ProviderUnreachable
from app.oidc.registry import Providers
from tests.support.oidc_provider import Provider
from tests.support.ports import free_port


def _configs(issuer: str) -> list[OidcProvider]:
    down = f"http://127.0.0.1:{free_port()}"
    return [
        OidcProvider.model_validate({"name": "up", "issuer": issuer, "clientId": "c"}),
        OidcProvider.model_validate({"name": "down", "issuer": down, "clientId": "c"}),
    ]


class CountingTransport(httpx.AsyncHTTPTransport):
    def __init__(self) -> None:
        super().__init__()
        self.paths: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.path)
        return await super().handle_async_request(request)


async def test_metadata_is_fetched_once_and_problems_are_named(provider: Provider) -> None:
    transport = CountingTransport()
    async with httpx.AsyncClient(transport=transport) as client:
        providers = Providers(_configs(provider.issuer), client)

        first = await providers.metadata("up")
        assert await providers.metadata("up") is first
        problems = await providers.problems()

    assert transport.paths.count("/.well-known/openid-configuration") == 2  # "up" once, "down" once
    assert list(problems) == ["down"] and "did not answer" in problems["down"]


async def test_a_provider_that_failed_is_not_asked_again_at_once(provider: Provider) -> None:
    transport = CountingTransport()
    async with httpx.AsyncClient(transport=transport) as client:
        providers = Providers(_configs(provider.issuer), client)
        for _ in range(3):
            with pytest.raises(ProviderUnreachable):
                await providers.metadata("down")
    assert len(transport.paths) == 1


async def test_the_keys_are_fetched_again_at_most_once_a_minute(provider: Provider) -> None:
    async with httpx.AsyncClient() as client:
        providers = Providers(_configs(provider.issuer), client)
        await providers.metadata("up")
        assert await providers.fresh_keys("up") is None  # just fetched with the document
        providers._keys_fetched["up"] = 0.0
        assert await providers.fresh_keys("up") is not None


async def test_an_unknown_name_is_a_404() -> None:
    async with httpx.AsyncClient() as client:
        with pytest.raises(NotFound):
            Providers([], client).config("nope")
