"""A provider's discovery document and keys (`{issuer}/.well-known/openid-configuration`, `jwks_uri`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from app.config import OidcProvider, check_web_url
from app.oidc.fetch import ProviderUnreachable, fetch_json

# Asymmetric algorithms only: an HS* ID token would be keyed with the client secret, `none` with nothing.
SAFE_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")


class Misconfigured(ProviderUnreachable):
    """The provider answers, but not as its configuration here says it should (issuer, endpoints)."""

    summary = "The identity provider is misconfigured"


@dataclass(frozen=True)
class Metadata:
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    algorithms: tuple[str, ...]
    token_auth_methods: tuple[str, ...]
    keys: KeySet = field(repr=False)


async def discover(client: httpx.AsyncClient, provider: OidcProvider) -> Metadata:
    """The provider's endpoints and keys, checked: Misconfigured or ProviderUnreachable says what is wrong."""
    url = f"{provider.issuer.rstrip('/')}/.well-known/openid-configuration"
    status, document = await fetch_json(client, "GET", url)
    if status != 200:
        raise ProviderUnreachable(f"{url} answered {status}")
    if document.get("issuer") != provider.issuer:
        raise Misconfigured(
            f"the discovery document names the issuer {document.get('issuer')!r}, not the configured "
            f"{provider.issuer!r} (the issuer setting must be exactly the provider's)"
        )
    endpoints = {name: _endpoint(document, name) for name in _ENDPOINTS}
    algorithms = tuple(
        a for a in document.get("id_token_signing_alg_values_supported", []) if a in SAFE_ALGORITHMS
    )
    return Metadata(
        **endpoints,
        algorithms=algorithms or ("RS256",),
        token_auth_methods=tuple(
            document.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
        ),
        keys=await fetch_keys(client, endpoints["jwks_uri"]),
    )


_ENDPOINTS = ("authorization_endpoint", "token_endpoint", "jwks_uri")


def _endpoint(document: dict[str, Any], name: str) -> str:
    value = document.get(name)
    if not isinstance(value, str):
        raise Misconfigured(f"the discovery document has no {name}")
    try:
        return check_web_url(value, name)
    except ValueError as exc:
        raise Misconfigured(str(exc)) from None


async def fetch_keys(client: httpx.AsyncClient, jwks_uri: str) -> KeySet:
    status, document = await fetch_json(client, "GET", jwks_uri)
    if status != 200:
        raise ProviderUnreachable(f"the key set answered {status}")
    try:
        return KeySet.import_key_set(document)  # type: ignore[arg-type]
    except (JoseError, ValueError, TypeError, KeyError) as exc:
        raise Misconfigured(f"the key set is not a JWK set ({type(exc).__name__})") from None
