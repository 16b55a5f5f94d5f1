"""A user's roles (app.models.user): the hierarchy ADMIN > SUPPLIER > USER, every account a user."""

from __future__ import annotations

import pytest

from app.models import User
from app.models.enums import Role


@pytest.mark.parametrize(
    ("roles", "effective"),
    [
        ([], {Role.USER}),
        ([Role.USER], {Role.USER}),
        ([Role.SUPPLIER], {Role.USER, Role.SUPPLIER}),
        ([Role.ADMIN], {Role.USER, Role.SUPPLIER, Role.ADMIN}),
        ([Role.USER, Role.ADMIN], {Role.USER, Role.SUPPLIER, Role.ADMIN}),
    ],
)
def test_the_effective_roles_follow_the_hierarchy(roles: list[Role], effective: set[Role]) -> None:
    user = User(roles=roles)
    assert user.effective_roles == effective
    assert user.roles == roles  # what is stored stays as it was given


@pytest.mark.parametrize(
    ("roles", "admin"),
    [([Role.ADMIN], True), ([Role.USER, Role.ADMIN], True), ([Role.SUPPLIER], False), ([], False)],
)
def test_only_the_admin_role_makes_an_admin(roles: list[Role], admin: bool) -> None:
    assert User(roles=roles).is_admin is admin
