"""Households on the wire (docs/api.md, "Households"): the household with its members, invitations, and
the membership an accepted invitation answers."""

from __future__ import annotations

from pydantic import Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from app.api.schemas import Email, IsoUtc, RequestModel, ResponseModel
from app.models.enums import HouseholdRoleName, InvitedRoleName

NAME_DOC = "1 to 200 characters, trimmed."
NAME_EXAMPLE = "The Smiths"


class HouseholdCreate(RequestModel):
    name: str = Field(min_length=1, max_length=200, description=NAME_DOC, examples=[NAME_EXAMPLE])


class HouseholdUpdate(RequestModel):
    """Absent `name` leaves it as it is; null is refused."""

    name: str | SkipJsonSchema[None] = Field(
        default=None, min_length=1, max_length=200, description=NAME_DOC, examples=[NAME_EXAMPLE]
    )

    @field_validator("name", mode="before")
    @classmethod
    def _not_null(cls, value: object) -> object:
        if value is None:  # a household always has a name
            raise ValueError("may not be null")
        return value


class HouseholdMemberOut(ResponseModel):
    user_id: int = Field(examples=[7])
    name: str = Field(examples=["Ann Smith"])
    email: str = Field(examples=["ann@example.com"])
    role: HouseholdRoleName = Field(examples=["owner"])
    joined_at: IsoUtc


class HouseholdOut(ResponseModel):
    id: int = Field(examples=[3])
    name: str = Field(examples=[NAME_EXAMPLE])
    members: list[HouseholdMemberOut] = Field(description="Oldest member first.")


class HouseholdRoleChange(RequestModel):
    role: HouseholdRoleName = Field(description="The member's new role.", examples=["viewer"])


class HouseholdMembership(HouseholdMemberOut):
    """The caller's membership, as accepting an invitation answers it."""

    household_id: int = Field(examples=[3])
    household_name: str = Field(examples=[NAME_EXAMPLE])


class HouseholdInvitationCreate(RequestModel):
    email: Email = Field(description="Who is invited: the account with this email may accept.")
    role: InvitedRoleName = Field(description="The role accepting gives (never owner).", examples=["member"])


class HouseholdInvitationOut(ResponseModel):
    id: int = Field(examples=[11])
    email: str = Field(examples=["bob@example.com"])
    role: InvitedRoleName = Field(examples=["member"])
    invited_by_id: int | None = Field(description="null once the inviter's account is deleted.", examples=[7])
    created_at: IsoUtc
    expires_at: IsoUtc = Field(description="7 days after it was made; after that the link is a 404.")
    expired: bool = Field(description="Whether `expiresAt` has passed.", examples=[False])
