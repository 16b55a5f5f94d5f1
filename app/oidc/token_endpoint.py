"""The authorization code traded at the provider's token endpoint for an ID token (RFC 6749 4.1.3 with
the PKCE verifier of RFC 7636). A confidential client authenticates with client_secret_basic, or with
client_secret_post when the provider announces only that; a public client sends its client_id alone."""

from __future__ import annotations

from urllib.parse import quote

import httpx

from app.config import OidcProvider
from app.core.one_line import one_line
from app.oidc.fetch import ProviderUnreachable, fetch_json
from app.oidc.metadata import Metadata
from app.oidc.outcomes import Outcome, SignInFailed


async def redeem_code(
    client: httpx.AsyncClient,
    provider: OidcProvider,
    metadata: Metadata,
    *,
    code: str,
    verifier: str,
    redirect_uri: str,
) -> str:
    """The raw ID token; SignInFailed when the provider refuses the code, ProviderUnreachable (503) when
    it does not answer."""
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": redirect_uri,
        "code_verifier": verifier,
    }
    auth: httpx.BasicAuth | None = None
    secret = provider.client_secret.get_secret_value() if provider.client_secret else None
    if secret is not None and _basic(metadata):
        # RFC 6749 2.3.1: the id and secret are form-encoded before they are joined and base64-encoded.
        auth = httpx.BasicAuth(quote(provider.client_id, safe=""), quote(secret, safe=""))
    else:
        form["client_id"] = provider.client_id
        if secret is not None:
            form["client_secret"] = secret
    status, answer = await fetch_json(
        client, "POST", metadata.token_endpoint, data=form, auth=auth, headers={"Accept": "application/json"}
    )
    if status >= 500:
        raise ProviderUnreachable(f"the token endpoint answered {status}")
    if status != 200:
        error = one_line(str(answer.get("error", "unknown"))[:64])
        raise SignInFailed(Outcome.INVALID_CODE, f"the token endpoint refused the code ({status} {error})")
    id_token = answer.get("id_token")
    if not isinstance(id_token, str):
        raise SignInFailed(Outcome.INVALID_ID_TOKEN, "the token endpoint answered no id_token")
    return id_token


def _basic(metadata: Metadata) -> bool:
    methods = metadata.token_auth_methods
    return "client_secret_basic" in methods or "client_secret_post" not in methods
