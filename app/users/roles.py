"""Account roles, stored as a JSON list on the user (ADMIN > SUPPLIER > USER: `User.effective_roles`)."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal


class Role(StrEnum):
    USER = "ROLE_USER"
    SUPPLIER = "ROLE_SUPPLIER"
    ADMIN = "ROLE_ADMIN"


# As request and response fields take them (tests/users/test_roles.py holds it equal to `Role`).
RoleName = Literal["ROLE_USER", "ROLE_SUPPLIER", "ROLE_ADMIN"]
