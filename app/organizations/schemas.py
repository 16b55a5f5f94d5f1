"""Supplier organisations on the wire (docs/api.md, "Supplier organisations"): an organisation with its
brands and member count, its members, and the caller's own organisation with their role there."""

from __future__ import annotations

from typing import Annotated, Any, Self
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import ConfigDict, Field, StringConstraints, field_validator, model_validator
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
BRANDS_EXAMPLE: list[Any] = ["Gaggia", "Saeco"]
EMAIL_DOC = "Told of the organisation's claims while none of its agents is assigned; optional."
EMAIL_EXAMPLE = "service@gaggia.example.com"

Brand = Annotated[str, StringConstraints(min_length=1, max_length=MAX_BRAND_LENGTH)]

# Deadlines (contract 17.8; docs/api.md, "Deadlines").
MAX_DEADLINE_MINUTES = 525_600  # a year of minutes
FIRST_RESPONSE_DOC = (
    f"Minutes (1 to {MAX_DEADLINE_MINUTES:,}) within which the first supplier-side message or status change "
    "is due, counted in the business hours when there are some. Default 1,440."
)
RESOLUTION_DOC = (
    f"Minutes (1 to {MAX_DEADLINE_MINUTES:,}) within which the claim is due to be resolved, pauses excluded, "
    "counted in the business hours when there are some. Default 7,200."
)
HOURS_DOC = (
    "The hours deadlines are counted in: an IANA time zone, ISO weekdays (1 = Monday) and local wall-clock "
    "times, `end` exclusive; null: around the clock. Changing them, or the minutes, re-computes the open "
    "claims' deadlines."
)
HOURS_EXAMPLE: dict[str, Any] = {
    "timezone": "Europe/Berlin",
    "days": [1, 2, 3, 4, 5],
    "start": "09:00",
    "end": "17:00",
}
_CLOCK = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"
_CLOCK_END = r"^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$"


def known_zone(name: str) -> str:
    """An IANA zone `zoneinfo` knows (a path, or anything it cannot load, is not one)."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError("not a known IANA time zone") from None
    return name


class BusinessHoursIn(RequestModel):
    """Business hours: `start` before `end` on the same day (`end` may be "24:00")."""

    model_config = ConfigDict(json_schema_extra={"examples": [HOURS_EXAMPLE]})

    timezone: str = Field(
        min_length=1, max_length=64, description="An IANA time zone.", examples=["Europe/Berlin"]
    )
    days: list[Annotated[int, Field(ge=1, le=7)]] = Field(
        min_length=1,
        max_length=7,
        description="ISO weekdays, 1 = Monday, each once.",
        examples=[[1, 2, 3, 4, 5]],
    )
    start: str = Field(pattern=_CLOCK, description='"HH:MM", local time.', examples=["09:00"])
    end: str = Field(pattern=_CLOCK_END, description='"HH:MM", exclusive, after `start`.', examples=["17:00"])

    _zone = field_validator("timezone")(known_zone)

    @field_validator("days")
    @classmethod
    def _unique(cls, days: list[int]) -> list[int]:
        if len(set(days)) != len(days):
            raise ValueError("each weekday at most once")
        return sorted(days)

    @model_validator(mode="after")
    def _in_order(self) -> Self:
        if self.end <= self.start:
            raise ValueError("end: must be after start")
        return self

    def stored(self) -> dict[str, Any]:
        return {"timezone": self.timezone, "days": self.days, "start": self.start, "end": self.end}


class DeadlineSettings(RequestModel):
    """The organisation's deadlines (contract 17.8): any subset; `businessHours: null` removes the hours."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"firstResponseMinutes": 240, "resolutionMinutes": 2400, "businessHours": HOURS_EXAMPLE},
                {"businessHours": None},
            ]
        }
    )

    # Null is refused (below); typed as nullable so that an error names the field itself.
    first_response_minutes: int | None = Field(
        default=None, ge=1, le=MAX_DEADLINE_MINUTES, description=FIRST_RESPONSE_DOC, examples=[240]
    )
    resolution_minutes: int | None = Field(
        default=None, ge=1, le=MAX_DEADLINE_MINUTES, description=RESOLUTION_DOC, examples=[2400]
    )
    business_hours: BusinessHoursIn | None = Field(default=None, description=HOURS_DOC)

    @field_validator("first_response_minutes", "resolution_minutes", mode="before")
    @classmethod
    def _minutes_not_null(cls, value: object) -> object:
        if value is None:
            raise ValueError("may not be null")
        return value


class BusinessHoursOut(ResponseModel):
    timezone: str = Field(examples=["Europe/Berlin"])
    days: list[int] = Field(examples=[[1, 2, 3, 4, 5]])
    start: str = Field(examples=["09:00"])
    end: str = Field(examples=["17:00"])


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


class OrganizationUpdate(DeadlineSettings):
    """Any subset of the fields. `brands` replaces the whole list; `email: null` removes the email;
    `name` and `brands` may not be null; `businessHours: null` removes the business hours."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"name": NAME_EXAMPLE, "brands": BRANDS_EXAMPLE},
                {"firstResponseMinutes": 240, "resolutionMinutes": 2400, "businessHours": HOURS_EXAMPLE},
            ]
        }
    )

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
    first_response_minutes: int = Field(description=FIRST_RESPONSE_DOC, examples=[1440])
    resolution_minutes: int = Field(description=RESOLUTION_DOC, examples=[7200])
    business_hours: BusinessHoursOut | None = Field(description=HOURS_DOC, examples=[HOURS_EXAMPLE])
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
