from __future__ import annotations

from pydantic import Field, field_serializer

from app.core.schemas import Email, Password, RequestModel, ResponseModel, UtcDateTime
from app.users.repository import normalize_roles

PROFILE_PICTURE_PATH = "/api/user/profile-picture/"


class UserSummary(ResponseModel):
    """The user in a login answer."""

    id: int
    email: str
    name: str
    roles: list[str]

    @field_serializer("roles")
    def _roles(self, roles: list[str]) -> list[str]:
        return normalize_roles(roles)


class UserListItem(UserSummary):
    notifications_enabled: bool
    email_notifications_enabled: bool
    created_at: UtcDateTime


class UserOut(UserListItem):
    """The single-user object (spec 2.5)."""

    street: str | None = None
    postal_code: str | None = None
    city: str | None = None
    country: str | None = None
    profile_picture: str | None = None

    @field_serializer("profile_picture")
    def _picture_path(self, filename: str | None) -> str | None:
        return f"{PROFILE_PICTURE_PATH}{filename}" if filename else None


class UserRegister(RequestModel):
    email: Email
    password: Password
    name: str = Field(min_length=1, max_length=255)
