"""Passwords, access tokens and opaque tokens (app.core.security): Argon2id hashes renewed when their
parameters are old, HS256 tokens carrying the session family and credential version, and the HMACs the
webhooks sign and check with. (The memory of verified tokens: tests/auth/test_tokens.py.)"""

from __future__ import annotations

import hashlib
import hmac
import time

import jwt
import pytest
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

from app.core.security import (
    PasswordHasher,
    constant_time_equals,
    create_access_token,
    decode_access_token,
    hash_token,
    hmac_sha256,
    new_opaque_token,
    signing_key,
    standard_webhook_mac,
)
from app.errors import Unauthorized
from tests.conftest import TEST_SECRET, SettingsFactory


async def test_a_password_hash_verifies_only_its_password(make_settings: SettingsFactory) -> None:
    hasher = PasswordHasher(make_settings())
    hashed = await hasher.hash("correct horse")
    assert hashed.startswith("$argon2id$") and "$m=1024,t=1,p=1$" in hashed  # the configured cost
    assert hashed != await hasher.hash("correct horse")  # salted
    assert await hasher.verify("correct horse", hashed)
    assert not await hasher.verify("wrong horse", hashed)
    assert await hasher.verify("sync", hasher.hash_sync("sync"))


async def test_no_hash_is_verified_against_a_dummy_and_fails(make_settings: SettingsFactory) -> None:
    hasher = PasswordHasher(make_settings())
    assert await hasher.verify_and_update("anything", None) == (False, None)
    assert not await hasher.verify("", None)


async def test_a_hash_with_other_parameters_is_answered_renewed(make_settings: SettingsFactory) -> None:
    hasher = PasswordHasher(make_settings())
    older = PasswordHash((Argon2Hasher(time_cost=2, memory_cost=2048, parallelism=2),)).hash("pw")

    valid, renewed = await hasher.verify_and_update("pw", older)
    assert valid and renewed is not None and "$m=1024,t=1,p=1$" in renewed
    assert await hasher.verify("pw", renewed)
    assert await hasher.verify_and_update("pw", renewed) == (True, None)  # current: left as it is
    assert (await hasher.verify_and_update("not pw", older))[0] is False


def test_an_access_token_carries_the_user_roles_family_and_credential_version(
    make_settings: SettingsFactory,
) -> None:
    settings = make_settings()
    token = create_access_token(settings, 7, ["ROLE_USER", "ROLE_SUPPLIER"], "family-1", 3)
    payload = decode_access_token(settings, token)
    assert (payload.user_id, payload.roles) == (7, ["ROLE_USER", "ROLE_SUPPLIER"])
    assert (payload.session_family, payload.credential_version) == ("family-1", 3)
    assert payload.jti and len(payload.jti) == 32
    remaining = payload.expires_at.timestamp() - time.time()
    assert settings.access_token_ttl - 5 < remaining <= settings.access_token_ttl

    plain = decode_access_token(settings, create_access_token(settings, 8, []))
    assert (plain.session_family, plain.credential_version, plain.roles) == (None, 0, [])
    assert plain.jti != payload.jti
    claims = jwt.decode(create_access_token(settings, 9, []), TEST_SECRET, algorithms=["HS256"])
    assert "sid" not in claims and "cv" not in claims  # nothing said when there is nothing to say


def _signed(claims: dict[str, object], key: str = TEST_SECRET, algorithm: str = "HS256") -> str:
    return jwt.encode(claims, key, algorithm=algorithm)


@pytest.mark.parametrize(
    "claims",
    [
        {"sub": "7", "iat": 0},  # no expiry
        {"sub": "7", "exp": 4102444800},  # no issue time
        {"iat": 0, "exp": 4102444800},  # nobody
        {"sub": "seven", "iat": 0, "exp": 4102444800},
        {"sub": "7", "iat": 0, "exp": 4102444800, "cv": "x"},
    ],
)
def test_a_token_missing_or_garbling_a_claim_is_invalid(
    make_settings: SettingsFactory, claims: dict[str, object]
) -> None:
    with pytest.raises(Unauthorized) as refused:
        decode_access_token(make_settings(), _signed(claims))
    assert refused.value.code == "AUTH_TOKEN_INVALID"


def test_only_hs256_with_the_services_key_is_accepted(make_settings: SettingsFactory) -> None:
    settings = make_settings()
    claims = {"sub": "7", "iat": int(time.time()), "exp": int(time.time()) + 60}
    assert decode_access_token(settings, _signed(claims)).user_id == 7
    for token in (
        _signed(claims, algorithm="HS512"),
        _signed(claims, key="another-secret-key-long-enough-for-any-hmac-algorithm-0123456789"),
        jwt.encode(claims, None, algorithm="none"),  # type: ignore[arg-type]
        "not.a.token",
        "",
    ):
        with pytest.raises(Unauthorized) as refused:
            decode_access_token(settings, token)
        assert refused.value.code == "AUTH_TOKEN_INVALID", token


def test_a_token_past_its_expiry_is_expired(make_settings: SettingsFactory) -> None:
    gone = _signed({"sub": "7", "iat": int(time.time()) - 120, "exp": int(time.time()) - 60})
    with pytest.raises(Unauthorized) as refused:
        decode_access_token(make_settings(), gone)
    assert refused.value.code == "AUTH_TOKEN_EXPIRED"


def test_no_signing_key_is_an_error_not_a_default(make_settings: SettingsFactory) -> None:
    settings = make_settings()
    assert signing_key(settings) == TEST_SECRET.encode()
    with pytest.raises(RuntimeError, match="no signing key"):
        signing_key(settings.model_copy(update={"secret_key": None}))


def test_opaque_tokens_are_random_and_stored_as_their_sha256() -> None:
    tokens = {new_opaque_token() for _ in range(100)}
    assert len(tokens) == 100
    assert all(len(token) == 43 and token.isascii() and " " not in token for token in tokens)
    assert hash_token("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert len(hash_token(new_opaque_token())) == 64


def test_hmacs_and_their_constant_time_comparison() -> None:
    # RFC 4231, test case 2.
    expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    assert hmac_sha256(b"Jefe", b"what do ya want for nothing?").hex() == expected
    mac = standard_webhook_mac(b"key", "msg_1", "1700000000", b'{"a":1}')
    assert mac == hmac.new(b"key", b'msg_1.1700000000.{"a":1}', hashlib.sha256).digest()
    assert mac != standard_webhook_mac(b"key", "msg_1", "1700000001", b'{"a":1}')

    assert constant_time_equals("abc", "abc") and constant_time_equals("abc", b"abc")
    assert constant_time_equals(b"\xff", b"\xff")
    assert not constant_time_equals("abc", "abd") and not constant_time_equals("abc", "abcd")
