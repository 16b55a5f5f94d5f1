"""The sign-in tests' app: three providers on the real provider of tests/support/oidc_provider.py
(`mock`: creates accounts, maps `groups`; `invite-only`: creates none) and one that cannot be reached
(`down`)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.config import Settings
from tests.conftest import SettingsFactory
from tests.support.oidc_provider import Provider, oidc_provider, provider
from tests.support.ports import free_port

__all__ = ["oidc_provider", "provider"]

APP_REDIRECT = "http://localhost:3000/signed-in"
CLIENT_SECRET = "s3cret-of-the-client"


def providers_for(issuer: str) -> list[dict[str, Any]]:
    return [
        {
            "name": "mock",
            "issuer": issuer,
            "clientId": "warranty",
            "clientSecret": CLIENT_SECRET,
            "autoRegister": True,
            "roleClaim": "groups",
            "roleMap": {"warranty-suppliers": "ROLE_SUPPLIER", "warranty-admins": ["ROLE_ADMIN"]},
        },
        {"name": "invite-only", "issuer": issuer, "clientId": "warranty-2", "clientSecret": "other-s3cret"},
        {"name": "down", "issuer": f"http://127.0.0.1:{free_port()}", "clientId": "warranty"},
    ]


@pytest.fixture
def settings(make_settings: SettingsFactory, request: pytest.FixtureRequest, provider: Provider) -> Settings:
    marker = request.node.get_closest_marker("settings")
    values: dict[str, Any] = {
        "base_url": "http://testserver",
        "oidc_providers": json.dumps(providers_for(provider.issuer)),
        "oidc_redirects": "http://localhost:3000/signed-in,https://app.example.com/",
        "oidc_timeout": 5.0,
    }
    values.update(marker.kwargs if marker else {})
    return make_settings(**values)
