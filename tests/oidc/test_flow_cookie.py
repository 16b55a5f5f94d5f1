"""The sign-in's cookie is sealed: unreadable, unforgeable, for one provider, short-lived."""

from __future__ import annotations

import time

from app.config import Settings
from app.oidc.flow_cookie import Flow, callback_path, new_expiry, open_flow, seal
from tests.conftest import TEST_SECRET


def _settings(key: str = TEST_SECRET) -> Settings:
    return Settings(_env_file=None, secret_key=key)  # type: ignore[call-arg]


def _flow(**changes: object) -> Flow:
    values: dict[str, object] = {
        "provider": "kc",
        "state": "st4te",
        "nonce": "n0nce",
        "verifier": "v" * 64,
        "redirect": "https://app.example.com/",
        "expires": new_expiry(),
    }
    values.update(changes)
    return Flow(**values)  # type: ignore[arg-type]


def test_a_sealed_flow_opens_for_its_provider_and_hides_its_contents() -> None:
    flow = _flow()
    sealed = seal(_settings(), flow)

    assert open_flow(_settings(), sealed, "kc") == flow
    assert "st4te" not in sealed and "n0nce" not in sealed
    assert open_flow(_settings(), sealed, "other") is None


def test_a_forged_expired_or_foreign_cookie_opens_nothing() -> None:
    sealed = seal(_settings(), _flow())

    assert open_flow(_settings(), sealed[:-2] + "AA", "kc") is None
    assert open_flow(_settings("another-secret-key-of-at-least-32-bytes!"), sealed, "kc") is None
    assert open_flow(_settings(), seal(_settings(), _flow(expires=int(time.time()) - 1)), "kc") is None
    assert open_flow(_settings(), None, "kc") is None
    assert open_flow(_settings(), "x" * 5000, "kc") is None


def test_the_cookie_path_is_the_callback() -> None:
    assert callback_path("kc") == "/api/auth/oidc/kc/callback"
