"""Roles mapped from the provider's claim (app.oidc.accounts); linking and creating accounts are driven
through the real provider in test_router.py."""

from __future__ import annotations

from typing import Any

from app.config import OidcProvider
from app.oidc.accounts import mapped_roles

PROVIDER = OidcProvider.model_validate(
    {
        "name": "kc",
        "issuer": "https://id.example.com",
        "clientId": "warranty",
        "roleClaim": "groups",
        "roleMap": {"suppliers": "ROLE_SUPPLIER", "boss": ["ROLE_ADMIN", "ROLE_SUPPLIER"]},
    }
)


def _roles(claims: dict[str, Any], provider: OidcProvider = PROVIDER) -> list[str]:
    return mapped_roles(provider, claims)


def test_a_claim_value_or_each_value_of_a_list_maps_to_roles() -> None:
    assert _roles({"groups": "suppliers"}) == ["ROLE_SUPPLIER"]
    assert _roles({"groups": ["boss", "suppliers", "unknown"]}) == ["ROLE_ADMIN", "ROLE_SUPPLIER"]


def test_nothing_maps_without_the_claim_a_mapped_value_or_a_map() -> None:
    assert _roles({}) == []
    assert _roles({"groups": ["admins", 7, None]}) == []
    assert _roles({"groups": {"boss": True}}) == []
    plain = OidcProvider.model_validate({"name": "g", "issuer": "https://g.example.com", "clientId": "c"})
    assert _roles({"groups": "boss"}, plain) == []
