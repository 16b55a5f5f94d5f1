"""How the code is redeemed (app.oidc.token_endpoint): client authentication by the provider's announced
methods, and the provider's answers. A stand-in token endpoint that checks the request as RFC 6749 4.1.3
and RFC 7636 4.5 describe it; the real provider is in test_router.py."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import parse_qs, unquote

import httpx
import pytest
from joserfc.jwk import KeySet

from app.config import OidcProvider
from app.errors import ServiceUnavailable
from app.oidc.metadata import Metadata
from app.oidc.outcomes import Outcome, SignInFailed
from app.oidc.token_endpoint import redeem_code


def _provider(secret: str | None) -> OidcProvider:
    values = {"name": "kc", "issuer": "https://id.example.com", "clientId": "warranty app"}
    return OidcProvider.model_validate({**values, **({"clientSecret": secret} if secret else {})})


def _metadata(methods: tuple[str, ...] = ("client_secret_basic",)) -> Metadata:
    return Metadata(
        authorization_endpoint="https://id.example.com/auth",
        token_endpoint="https://id.example.com/token",
        jwks_uri="https://id.example.com/jwks",
        algorithms=("RS256",),
        token_auth_methods=methods,
        keys=KeySet([]),
    )


class TokenEndpoint:
    def __init__(self, status: int = 200, answer: Any = None) -> None:
        self.status, self.answer = status, answer if answer is not None else {"id_token": "a.b.c"}
        self.form: dict[str, str] = {}
        self.basic: tuple[str, str] | None = None

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.form = {key: values[0] for key, values in parse_qs(request.content.decode()).items()}
        header = request.headers.get("authorization", "")
        if header.startswith("Basic "):
            user, _, password = base64.b64decode(header[6:]).decode().partition(":")
            self.basic = (unquote(user), unquote(password))
        return httpx.Response(self.status, json=self.answer)


async def _redeem(endpoint: TokenEndpoint, provider: OidcProvider, metadata: Metadata | None = None) -> str:
    async with httpx.AsyncClient(transport=httpx.MockTransport(endpoint)) as client:
        return await redeem_code(
            client,
            provider,
            metadata or _metadata(),
            code="c0de",
            verifier="v" * 64,
            redirect_uri="https://s/cb",
        )


async def test_a_confidential_client_uses_basic_with_form_encoded_credentials() -> None:
    endpoint = TokenEndpoint()

    assert await _redeem(endpoint, _provider("p@ss:word")) == "a.b.c"

    assert endpoint.basic == ("warranty app", "p@ss:word")
    assert endpoint.form == {
        "grant_type": "authorization_code",
        "code": "c0de",
        "redirect_uri": "https://s/cb",
        "code_verifier": "v" * 64,
    }


async def test_post_when_the_provider_announces_only_post_and_a_public_client_sends_its_id() -> None:
    post, public = TokenEndpoint(), TokenEndpoint()

    await _redeem(post, _provider("s3cret"), _metadata(("client_secret_post",)))
    await _redeem(public, _provider(None))

    assert (
        post.basic is None
        and post.form["client_id"] == "warranty app"
        and post.form["client_secret"] == "s3cret"
    )
    assert (
        public.basic is None
        and public.form["client_id"] == "warranty app"
        and "client_secret" not in public.form
    )


@pytest.mark.parametrize(
    ("endpoint", "outcome"),
    [
        (TokenEndpoint(400, {"error": "invalid_grant"}), Outcome.INVALID_CODE),
        (TokenEndpoint(401, {"error": "invalid_client"}), Outcome.INVALID_CODE),
        (TokenEndpoint(200, {"access_token": "x"}), Outcome.INVALID_ID_TOKEN),
    ],
)
async def test_a_refused_code_or_a_missing_id_token_fails_the_sign_in(
    endpoint: TokenEndpoint, outcome: Outcome
) -> None:
    with pytest.raises(SignInFailed) as failed:
        await _redeem(endpoint, _provider("s"))
    assert failed.value.outcome is outcome


async def test_a_provider_in_trouble_is_a_503() -> None:
    with pytest.raises(ServiceUnavailable):
        await _redeem(TokenEndpoint(502, {"error": "bad gateway"}), _provider("s"))
