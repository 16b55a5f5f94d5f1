"""The settings of sender authentication (app/config.py, read by app/inbound/guards.py):
WARRANTY_INBOUND_AUTHSERV_IDS as a comma list, and authentication required once it is set, refused at
start without a server to trust."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.config import Settings


def test_the_settings_read_a_comma_list_and_require_auth_once_it_is_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WARRANTY_INBOUND_AUTHSERV_IDS", " mx.provider.example, amazonses.com ,")
    listed = Settings(_env_file=None)  # type: ignore[call-arg]
    monkeypatch.setenv("WARRANTY_INBOUND_REQUIRE_AUTH", "false")
    relaxed = Settings(_env_file=None)  # type: ignore[call-arg]
    monkeypatch.delenv("WARRANTY_INBOUND_AUTHSERV_IDS")
    monkeypatch.setenv("WARRANTY_INBOUND_REQUIRE_AUTH", "")
    unset = Settings(_env_file=None)  # type: ignore[call-arg]

    assert listed.inbound_authserv_ids == ["mx.provider.example", "amazonses.com"]
    assert (listed.inbound_auth_required, relaxed.inbound_auth_required) == (True, False)
    assert (unset.inbound_authserv_ids, unset.inbound_auth_required) == ([], False)


def test_requiring_authentication_without_a_trusted_server_is_refused_at_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WARRANTY_INBOUND_REQUIRE_AUTH", "true")
    with pytest.raises(ValidationError, match="WARRANTY_INBOUND_AUTHSERV_IDS"):
        Settings(_env_file=None)  # type: ignore[call-arg]
