from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, ConfigDict, Field, StrictBool, field_serializer

from app.api.schemas import Email, IsoUtc, Password, RequestModel, ResponseModel
from app.models.enums import RoleName
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
    created_at: IsoUtc


class UserOut(UserListItem):
    """The single-user object (docs/api.md §4)."""

    street: str | None = None
    postal_code: str | None = None
    city: str | None = None
    country: str | None = None
    profile_picture: str | None = None

    @field_serializer("profile_picture")
    def _picture_path(self, filename: str | None) -> str | None:
        return f"{PROFILE_PICTURE_PATH}{filename}" if filename else None


class IdentityOut(ResponseModel):
    """An identity provider's account linked to the user (contract 18.3)."""

    provider: str = Field(examples=["keycloak"])
    subject: str = Field(examples=["f3a1c2d4-5b6e-4f70-8a91-b2c3d4e5f607"])


class MeOut(UserOut):
    """The signed-in user, with the provider accounts linked to it."""

    identities: list[IdentityOut] = Field(default_factory=list)


class UserRegister(RequestModel):
    email: Email
    password: Password
    name: str = Field(min_length=1, max_length=255)


OptionalText = Annotated[str | None, AfterValidator(lambda value: value or None)]


class UserPatch(RequestModel):
    """The fields a user may change on their own account (docs/api.md §4); only the ones sent change.
    Address fields may be set to null (or "") to clear them."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"city": "Lyon", "postalCode": "69001", "emailNotificationsEnabled": False}]
        }
    )

    name: str = Field(default=None, min_length=1, max_length=255)  # type: ignore[assignment]
    street: OptionalText = Field(default=None, max_length=255)
    postal_code: OptionalText = Field(default=None, max_length=32)
    city: OptionalText = Field(default=None, max_length=100)
    country: OptionalText = Field(default=None, max_length=100)
    notifications_enabled: StrictBool = None  # type: ignore[assignment]
    email_notifications_enabled: StrictBool = None  # type: ignore[assignment]

    def changes(self) -> dict[str, Any]:
        """attribute -> new value, for the fields the client sent."""
        return {name: getattr(self, name) for name in self.model_fields_set}


class AdminUserPatch(UserPatch):
    """An admin may also change `roles` and `email`."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"roles": ["ROLE_USER", "ROLE_SUPPLIER"], "email": "sam@example.com"}]
        }
    )

    roles: list[RoleName] = None  # type: ignore[assignment]
    email: Email = None  # type: ignore[assignment]


class UserCreate(UserRegister):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "email": "sam@example.com",
                    "password": "a long password",
                    "name": "Sam",
                    "roles": ["ROLE_SUPPLIER"],
                }
            ]
        }
    )

    roles: list[RoleName] | None = None


class UsersMeta(ResponseModel):
    current_page: int | None = Field(description="null when paging by cursor")
    total_pages: int
    total_items: int
    items_per_page: int
    # Named as in every paged list (docs/api.md §5.6), beside this meta's camelCase fields.
    next_cursor: str | None = Field(
        alias="next_cursor", description="opaque: `cursor` of the page after this one; null on the last"
    )


class UsersPage(ResponseModel):
    """`GET /api/users` (docs/api.md §4): its own meta shape, camelCase."""

    data: list[UserListItem]
    meta: UsersMeta


class ProfilePictureOut(ResponseModel):
    profile_picture: str
