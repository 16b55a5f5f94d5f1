"""A provider's discovery document and keys, checked (app.oidc.metadata): from the real provider, and from
stand-ins that answer what a misconfigured one would."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from joserfc.jwk import RSAKey

from app.config import OidcProvider
from app.oidc.fetch import ProviderUnreachable
from app.oidc.metadata import Misconfigured, discover
from tests.support.oidc_provider import Provider

ISSUER = "https://id.example.com/realms/home"
KEYS = {"keys": [RSAKey.generate_key(2048, parameters={"kid": "k"}).as_dict(private=False)]}


def _config(issuer: str = ISSUER) -> OidcProvider:
    return OidcProvider.model_validate({"name": "kc", "issuer": issuer, "clientId": "warranty"})


def _document(**changes: Any) -> dict[str, Any]:
    document = {
        "issuer": ISSUER,
        "authorization_endpoint": f"{ISSUER}/auth",
        "token_endpoint": f"{ISSUER}/token",
        "jwks_uri": f"{ISSUER}/certs",
        "id_token_signing_alg_values_supported": ["none", "HS256", "RS256", "ES256"],
    }
    document.update(changes)
    return {name: value for name, value in document.items() if value is not None}


async def _discover(document: dict[str, Any], keys: Any = None) -> Any:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/certs"):
            return httpx.Response(200, json=keys if keys is not None else KEYS)
        return httpx.Response(200, json=document)

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
        return await discover(client, _config())


async def test_the_real_provider_is_discovered(provider: Provider) -> None:
    async with httpx.AsyncClient() as client:
        metadata = await discover(client, _config(provider.issuer))

    assert metadata.token_endpoint == f"{provider.issuer}/oauth2/token"
    assert metadata.algorithms == ("RS256",) and len(metadata.keys.keys) == 1


async def test_only_asymmetric_algorithms_are_kept() -> None:
    assert (await _discover(_document())).algorithms == ("RS256", "ES256")


@pytest.mark.parametrize(
    ("document", "says"),
    [
        (_document(issuer="https://id.example.com/realms/other"), "names the issuer"),
        (_document(token_endpoint=None), "no token_endpoint"),
        (_document(authorization_endpoint="http://id.example.com/auth"), "must be https"),
    ],
)
async def test_a_misconfigured_provider_says_what_is_wrong(document: dict[str, Any], says: str) -> None:
    with pytest.raises(Misconfigured) as failed:
        await _discover(document)
    assert says in failed.value.reason


async def test_a_key_set_that_is_none_is_refused() -> None:
    with pytest.raises(ProviderUnreachable) as failed:
        await _discover(_document(), keys={"keys": [{"kty": "nonsense"}]})
    assert "not a JWK set" in failed.value.reason
