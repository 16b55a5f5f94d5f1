"""An ID token is verified in full (app.oidc.id_token): tokens signed here with joserfc, each breaking one
rule."""

from __future__ import annotations

import time
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import KeySet, OctKey, RSAKey

from app.oidc.id_token import UnknownKey, verify_id_token
from app.oidc.outcomes import Outcome, SignInFailed

KEY = RSAKey.generate_key(2048, parameters={"kid": "k1"}, private=True)
KEYS = KeySet.import_key_set({"keys": [KEY.as_dict(private=False)]})
ISSUER, CLIENT = "https://id.example.com", "warranty"


def _token(header: dict[str, Any] | None = None, key: Any = KEY, **changes: Any) -> str:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": CLIENT, "sub": "u1", "iat": now, "exp": now + 300, "nonce": "n"}
    claims.update(changes)
    claims = {name: value for name, value in claims.items() if value is not None}
    return jwt.encode(header or {"alg": "RS256", "kid": "k1"}, claims, key)


def _verify(raw: str) -> dict[str, Any]:
    return verify_id_token(raw, KEYS, issuer=ISSUER, client_id=CLIENT, nonce="n", algorithms=("RS256",))


def test_a_good_token_gives_its_claims() -> None:
    assert _verify(_token())["sub"] == "u1"
    assert _verify(_token(aud=[CLIENT, "other"], azp=CLIENT))["sub"] == "u1"


@pytest.mark.parametrize(
    "changes",
    [
        {"iss": "https://evil.test"},
        {"aud": "someone-else"},
        {"exp": int(time.time()) - 120},
        {"nonce": "replayed"},
        {"nonce": None},
        {"sub": None},
        {"iat": None},
        {"aud": [CLIENT, "other"]},  # several audiences and no azp
        {"azp": "other"},
    ],
)
def test_a_token_breaking_a_rule_is_refused(changes: dict[str, Any]) -> None:
    with pytest.raises(SignInFailed) as failed:
        _verify(_token(**changes))
    assert failed.value.outcome is Outcome.INVALID_ID_TOKEN


def test_a_symmetric_or_unsigned_token_is_refused() -> None:
    secret = OctKey.import_key(b"k" * 32)
    with pytest.raises(SignInFailed):
        _verify(_token({"alg": "HS256", "kid": "k1"}, secret))
    header, payload, _ = _token().split(".")
    with pytest.raises(SignInFailed):
        _verify(f"{header}.{payload}.")


def test_a_token_by_an_unknown_key_asks_for_the_keys_again() -> None:
    other = RSAKey.generate_key(2048, parameters={"kid": "k2"}, private=True)
    with pytest.raises(UnknownKey):
        _verify(_token({"alg": "RS256", "kid": "k2"}, other))
