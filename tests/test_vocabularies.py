"""Each vocabulary is one StrEnum; where the API names it as a Literal (to keep its OpenAPI schema and its
validation errors), the Literal lists exactly the enum's values."""

from enum import StrEnum
from typing import Any, get_args

import pytest

from app.models.enums import (
    ClaimStatus,
    ClaimStatusName,
    HouseholdRole,
    HouseholdRoleName,
    OrganizationRole,
    OrganizationRoleName,
    OutboxState,
    OutboxStateName,
    Platform,
    PlatformName,
    Role,
    RoleName,
)


@pytest.mark.parametrize(
    ("enum", "literal"),
    [
        (ClaimStatus, ClaimStatusName),
        (Role, RoleName),
        (Platform, PlatformName),
        (OutboxState, OutboxStateName),
        (HouseholdRole, HouseholdRoleName),
        (OrganizationRole, OrganizationRoleName),
    ],
)
def test_the_wire_names_are_the_enum_values(enum: type[StrEnum], literal: Any) -> None:
    assert list(get_args(literal)) == [member.value for member in enum]
