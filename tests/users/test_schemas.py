"""Users on the wire (app.users.schemas): roles shown normalized, the picture as its path, and the patches:
only the fields sent change, a blank address field clears it, roles and email only for admins."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError

from app.users.schemas import AdminUserPatch, UserCreate, UserOut, UserPatch, UserSummary

CREATED = datetime(2026, 1, 15, 9, 30, tzinfo=UTC)


def _user(**fields: Any) -> dict[str, Any]:
    return {
        "id": 7,
        "email": "ann@example.com",
        "name": "Ann",
        "roles": ["ROLE_SUPPLIER"],
        "notifications_enabled": True,
        "email_notifications_enabled": False,
        "created_at": CREATED,
        **fields,
    }


def test_roles_are_shown_with_role_user_first_and_the_picture_as_its_path() -> None:
    summary = UserSummary.model_validate(_user()).model_dump(by_alias=True)
    assert summary == {
        "id": 7,
        "email": "ann@example.com",
        "name": "Ann",
        "roles": ["ROLE_USER", "ROLE_SUPPLIER"],
    }

    shown = UserOut.model_validate(_user(profile_picture="0123abcd.png")).model_dump(
        mode="json", by_alias=True
    )
    assert shown["profilePicture"] == "/api/user/profile-picture/0123abcd.png"
    assert shown["createdAt"] == "2026-01-15T09:30:00+00:00"
    assert (
        UserOut.model_validate(_user(profile_picture=None)).model_dump(by_alias=True)["profilePicture"]
        is None
    )


def test_a_patch_changes_only_the_fields_sent_and_a_blank_address_field_clears_it() -> None:
    patch = UserPatch.model_validate(
        {"name": " Ann ", "city": "", "street": None, "emailNotificationsEnabled": False}
    )
    assert patch.changes() == {
        "name": "Ann",
        "city": None,
        "street": None,
        "email_notifications_enabled": False,
    }
    assert UserPatch.model_validate({}).changes() == {}


@pytest.mark.parametrize(
    "body",
    [
        {"roles": ["ROLE_ADMIN"]},  # an admin's field
        {"email": "new@example.com"},
        {"name": ""},
        {"name": None},
        {"notificationsEnabled": "yes"},  # booleans only
        {"postalCode": "1" * 33},
    ],
)
def test_what_a_user_may_not_send_on_their_own_account(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        UserPatch.model_validate(body)


def test_an_admin_also_changes_roles_and_email_and_roles_are_the_known_ones() -> None:
    patch = AdminUserPatch.model_validate(
        {"roles": ["ROLE_SUPPLIER"], "email": "Sam@Example.com", "city": "Lyon"}
    )
    assert patch.changes() == {"roles": ["ROLE_SUPPLIER"], "email": "sam@example.com", "city": "Lyon"}
    for refused in ({"roles": ["ROLE_ROOT"]}, {"email": "not an email"}):
        with pytest.raises(ValidationError):
            AdminUserPatch.model_validate(refused)
    created = UserCreate.model_validate({"email": "n@example.com", "password": "long enough", "name": "N"})
    assert created.roles is None
