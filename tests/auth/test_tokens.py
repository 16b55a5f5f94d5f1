"""Access-token verification is remembered per secret and token text; the expiry is checked at every use."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.core.clock import frozen_time
from app.core.security import create_access_token, decode_access_token, verified_token_payload
from app.errors import Unauthorized
from tests.conftest import SettingsFactory


def _code(error: pytest.ExceptionInfo[Unauthorized]) -> str:
    return error.value.code


def test_a_remembered_token_holds_only_for_its_own_secret_and_its_exact_text(
    make_settings: SettingsFactory,
) -> None:
    ours = make_settings(secret_key="ours-" + "a" * 60)
    theirs = make_settings(secret_key="theirs-" + "b" * 60)
    token = create_access_token(ours, 7, ["ROLE_USER"])
    assert decode_access_token(ours, token).user_id == 7
    assert verified_token_payload(ours, token) is not None

    with pytest.raises(Unauthorized) as other_secret:
        decode_access_token(theirs, token)
    assert _code(other_secret) == "AUTH_TOKEN_INVALID" and verified_token_payload(theirs, token) is None

    head, payload, signature = token.split(".")
    forged_signature = signature[:-4] + ("AAAA" if not signature.endswith("AAAA") else "BBBB")
    with pytest.raises(Unauthorized) as forged:
        decode_access_token(ours, f"{head}.{payload}.{forged_signature}")
    assert _code(forged) == "AUTH_TOKEN_INVALID"


def test_a_remembered_token_still_expires(make_settings: SettingsFactory) -> None:
    settings = make_settings()
    token = create_access_token(settings, 7, ["ROLE_USER"])
    assert decode_access_token(settings, token).user_id == 7

    with frozen_time(datetime.now(UTC) + timedelta(seconds=settings.access_token_ttl + 1)):
        with pytest.raises(Unauthorized) as expired:
            decode_access_token(settings, token)
        assert _code(expired) == "AUTH_TOKEN_EXPIRED"
        assert verified_token_payload(settings, token) is None
