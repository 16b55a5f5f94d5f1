"""Supplier organisations on the wire (docs/api.md, "Supplier organisations"): an organisation with its
brands and member count, its members, and the caller's own organisation with their role there."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints, field_validator
from pydantic.json_schema import SkipJsonSchema

from app.api.schemas import Email, IsoUtc, RequestModel, ResponseModel
from app.core.ids import MAX_ID
from app.models.enums import OrganizationRoleName
from app.organizations.brands import MAX_BRAND_LENGTH, MAX_BRANDS, brand_key

NAME_DOC = "1 to 200 characters, trimmed."
NAME_EXAMPLE = "Gaggia Service"
BRANDS_DOC = (
    f"The brands whose claims go to this organisation: at most {MAX_BRANDS}, each 1 to {MAX_BRAND_LENGTH} "
    "characters, trimmed; repeats ignoring case count once (the first spelling is kept). A brand belongs to "
    "at most one organisation (409 BRAND_TAKEN)."
)
BRANDS_EXAMPLE = ["Gaggia", "Saeco"]
EMAIL_DOC = "Told of the organisation's claims while none of its agents is assigned; optional."
EMAIL_EXAMPLE = "service@gaggia.example.com"

Brand = Annotated[str, StringConstraints(min_length=1, max_length=MAX_BRAND_LENGTH)]


def _brands_as_sent(value: object) -> object:
    """Each brand's limit counts it as sent (padding included), and its key must fit the key column too
    (a few characters grow when lower-cased: "İ" becomes two)."""
    if isinstance(value, list):
        for brand in value:
            if isinstance(brand, str) and (
                len(brand) > MAX_BRAND_LENGTH or len(brand_key(brand)) > MAX_BRAND_LENGTH
            ):
                raise ValueError(f"each brand has at most {MAX_BRAND_LENGTH} characters")
    return value


def _distinct(brands: list[str] | None) -> list[str] | None:
    if brands is None:
        return None
    kept: dict[str, str] = {}
    for brand in brands:
        kept.setdefault(brand_key(brand), brand)
    return list(kept.values())


class OrganizationCreate(RequestModel):
    name: str = Field(min_length=1, max_length=200, description=NAME_DOC, examples=[NAME_EXAMPLE])
    brands: list[Brand] = Field(max_length=MAX_BRANDS, description=BRANDS_DOC, examples=[BRANDS_EXAMPLE])
    email: Email | None = Field(default=None, description=EMAIL_DOC, examples=[EMAIL_EXAMPLE])

    _sent = field_validator("brands", mode="before")(_brands_as_sent)
    _unique = field_validator("brands")(_distinct)


class OrganizationUpdate(RequestModel):
    """Any subset of the fields. `brands` replaces the whole list; `email: null` removes the email;
    `name` and `brands` may not be null."""

    # Absent means unchanged; null is refused, so the document does not offer it.
    name: str | SkipJsonSchema[None] = Field(
        default=None, min_length=1, max_length=200, description=NAME_DOC, examples=[NAME_EXAMPLE]
    )
    brands: list[Brand] | SkipJsonSchema[None] = Field(
        default=None, max_length=MAX_BRANDS, description=BRANDS_DOC, examples=[BRANDS_EXAMPLE]
    )
    email: Email | None = Field(default=None, description=EMAIL_DOC, examples=[EMAIL_EXAMPLE])

    _sent = field_validator("brands", mode="before")(_brands_as_sent)
    _unique = field_validator("brands")(_distinct)

    @field_validator("name", "brands", mode="before")
    @classmethod
    def _not_null(cls, value: object) -> object:
        if value is None:  # an organisation always has a name and a (possibly empty) list of brands
            raise ValueError("may not be null")
        return value


class OrganizationOut(ResponseModel):
    id: int = Field(examples=[4])
    name: str = Field(examples=[NAME_EXAMPLE])
    email: str | None = Field(description=EMAIL_DOC, examples=[EMAIL_EXAMPLE])
    brands: list[str] = Field(
        description="As the admin wrote them, in alphabetical order ignoring case.", examples=[BRANDS_EXAMPLE]
    )
    member_count: int = Field(description="Its managers and agents.", examples=[12])
    created_at: IsoUtc
    updated_at: IsoUtc


class MyOrganization(OrganizationOut):
    """The caller's organisation, with their role in it."""

    role: OrganizationRoleName = Field(description="The caller's role there.", examples=["manager"])


class MemberAdd(RequestModel):
    user_id: int = Field(ge=1, le=MAX_ID, description="A user with ROLE_SUPPLIER.", examples=[9])
    role: OrganizationRoleName = Field(examples=["agent"])


class MemberRoleChange(RequestModel):
    role: OrganizationRoleName = Field(description="The member's new role.", examples=["manager"])


class MemberOut(ResponseModel):
    user_id: int = Field(examples=[9])
    name: str = Field(examples=["Sam Supplier"])
    email: str = Field(examples=["sam@gaggia.example.com"])
    role: OrganizationRoleName = Field(examples=["agent"])
    joined_at: IsoUtc
