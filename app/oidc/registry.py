"""The configured providers, each with its discovery document and keys fetched once and cached.

Fetched at start (a provider that cannot be reached or is misconfigured is logged with what is wrong) and
again when needed: a document older than METADATA_TTL, or an ID token signed by a key not seen yet (a
rotation; at most once per KEY_REFRESH_INTERVAL). `/health/ready` names providers that cannot be reached.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from joserfc.jwk import KeySet

from app.config import OidcProvider, Settings
from app.errors import NotFound
from app.oidc.fetch import ProviderUnreachable
from app.oidc.metadata import Metadata, discover, fetch_keys

logger = logging.getLogger(__name__)

METADATA_TTL = 3600.0
KEY_REFRESH_INTERVAL = 60.0
RETRY_INTERVAL = 10.0  # a provider that failed is asked again at most this often (readiness, sign-ins)


class Providers:
    def __init__(self, providers: list[OidcProvider], client: httpx.AsyncClient) -> None:
        self.client = client
        self.configs = {provider.name: provider for provider in providers}
        self._metadata: dict[str, tuple[float, Metadata]] = {}
        self._problems: dict[str, tuple[float, ProviderUnreachable]] = {}
        self._keys_fetched: dict[str, float] = {}
        self._locks = {name: asyncio.Lock() for name in self.configs}

    def config(self, name: str) -> OidcProvider:
        provider = self.configs.get(name)
        if provider is None:
            raise NotFound(f"No identity provider is called {name!r}.")
        return provider

    async def metadata(self, name: str) -> Metadata:
        """The provider's metadata, fetched when missing or stale; ProviderUnreachable (503) otherwise."""
        provider = self.config(name)
        async with self._locks[name]:
            now = time.monotonic()
            cached = self._metadata.get(name)
            if cached is not None and now - cached[0] < METADATA_TTL:
                return cached[1]
            problem = self._problems.get(name)
            if problem is not None and now - problem[0] < RETRY_INTERVAL and cached is None:
                raise problem[1]
            try:
                metadata = await discover(self.client, provider)
            except ProviderUnreachable as exc:
                self._problems[name] = (now, exc)
                logger.warning("identity provider %s: %s", name, exc.reason)
                if cached is not None:
                    return cached[1]  # a stale document beats none while the provider is away
                raise
            self._problems.pop(name, None)
            self._metadata[name] = (now, metadata)
            self._keys_fetched[name] = now
            return metadata

    async def fresh_keys(self, name: str) -> KeySet | None:
        """The provider's key set fetched again (a token names a key not seen yet), or None when it was
        fetched less than KEY_REFRESH_INTERVAL ago."""
        metadata = await self.metadata(name)
        async with self._locks[name]:
            now = time.monotonic()
            if now - self._keys_fetched.get(name, 0.0) < KEY_REFRESH_INTERVAL:
                return None
            self._keys_fetched[name] = now
            keys = await fetch_keys(self.client, metadata.jwks_uri)
            fetched_at = self._metadata[name][0]
            self._metadata[name] = (fetched_at, _with_keys(metadata, keys))
            return keys

    async def problems(self) -> dict[str, str]:
        """Each provider that cannot be used now, with what is wrong (readiness)."""
        found: dict[str, str] = {}
        for name in self.configs:
            try:
                await self.metadata(name)
            except ProviderUnreachable as exc:
                found[name] = exc.reason
        return found


def _with_keys(metadata: Metadata, keys: KeySet) -> Metadata:
    return Metadata(
        authorization_endpoint=metadata.authorization_endpoint,
        token_endpoint=metadata.token_endpoint,
        jwks_uri=metadata.jwks_uri,
        algorithms=metadata.algorithms,
        token_auth_methods=metadata.token_auth_methods,
        keys=keys,
    )


@asynccontextmanager
async def providers_lifespan(settings: Settings) -> AsyncIterator[Providers]:
    """The providers, their documents asked for at start (failures are logged, not fatal: a provider
    may come back; `/health/ready` reports it meanwhile)."""
    timeout = httpx.Timeout(settings.oidc_timeout)
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client:
        providers = Providers(settings.oidc_providers, client)
        if providers.configs:
            await providers.problems()
        yield providers
