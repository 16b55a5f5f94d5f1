"""Products and receipts on the wire (docs/api.md §5.1, §5.7)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, ClassVar, Self

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PlainSerializer,
    StrictInt,
    ValidationError,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError
from sqlalchemy import Row

from app.api.schemas import IsoUtc, RequestModel, ResponseModel
from app.core.clock import utc_today
from app.core.ids import MAX_ID
from app.models import Product
from app.products.warranty import MAX_MONTHS, WarrantyStatus, warranty_status

EARLIEST_PURCHASE = date(1900, 1, 1)
MAX_PRICE = Decimal("9999999999.99")  # what Numeric(12, 2) holds
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
WARRANTY_LENGTH_REQUIRED = "Field required (or give warrantyEndsOn)"


def _day(value: object) -> date:
    """Only `YYYY-MM-DD` text, a real day."""
    if not isinstance(value, str) or not _ISO_DAY.match(value.strip()):
        raise ValueError("must be a date as YYYY-MM-DD")
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise ValueError("is not a real day") from None


def _purchase_date(value: object) -> date:
    """A day from 1900-01-01 up to today (UTC)."""
    day = _day(value)
    if day > utc_today():
        raise ValueError("must not be in the future")
    if day < EARLIEST_PURCHASE:
        raise ValueError("must not be before 1900-01-01")
    return day


def _price(value: object) -> Decimal | None:
    """A JSON number (not text, not a boolean), at least 0, with at most two decimals."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be a number")
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise ValueError("must be a number") from None
    if not amount.is_finite() or amount < 0:
        raise ValueError("must be a number of at least 0")
    if amount > MAX_PRICE:
        raise ValueError(f"must be at most {MAX_PRICE}")
    if amount != amount.quantize(Decimal("0.01")):
        raise ValueError("must have at most two decimals")
    return amount.quantize(Decimal("0.01"))


PurchaseDate = Annotated[
    date,
    BeforeValidator(_purchase_date),
    WithJsonSchema({"type": "string", "format": "date", "examples": ["2026-01-15"]}),
]
# Checked against the purchase day by app.products.service (not before it, at most 600 months after it).
EndDay = Annotated[
    date,
    BeforeValidator(_day),
    WithJsonSchema({"type": "string", "format": "date", "examples": ["2027-06-30"]}),
]
Price = Annotated[
    Decimal | None,
    BeforeValidator(_price),
    WithJsonSchema({"anyOf": [{"type": "number", "minimum": 0, "multipleOf": 0.01}, {"type": "null"}]}),
]
Months = Annotated[StrictInt, Field(ge=0, le=MAX_MONTHS)]
Name = Annotated[str, Field(min_length=1, max_length=255)]
Text100 = Annotated[str, Field(min_length=1, max_length=100)]
HouseholdId = Annotated[
    StrictInt,
    Field(
        ge=1,
        le=MAX_ID,
        description="Share the product with this household of its owner's (contract 17.3): its members see "
        "it, its owners and members edit it. `null` unshares it. Only the product's owner (or an admin) "
        "may set or change it; a household the owner is not a member of is a 404.",
        examples=[3],
    ),
]


def _midnight_utc(day: date) -> str:
    return f"{day.isoformat()}T00:00:00+00:00"


# A day shown as a timestamp at 00:00:00 UTC (purchaseDate and warrantyExpiresAt in responses).
DayAsTimestamp = Annotated[
    date,
    PlainSerializer(_midnight_utc, return_type=str),
    WithJsonSchema({"type": "string", "format": "date-time", "examples": ["2026-01-15T00:00:00+00:00"]}),
]
# Sent as a JSON number, as the client sent it (two decimals at most, so a float shows it exactly).
PriceOut = Annotated[
    Decimal | None, PlainSerializer(lambda v: None if v is None else float(v), return_type=float | None)
]

_EXAMPLE: dict[str, Any] = {
    "name": "Espresso machine",
    "brand": "Gaggia",
    "category": "Kitchen",
    "purchaseDate": "2026-01-15",
    "warrantyPeriodMonths": 24,
}


class ProductCreate(RequestModel):
    """A new product. Strings are trimmed; `store`, `price`, `serialNumber` and `householdId` (share it with
    one of the caller's households) are optional. The warranty runs `warrantyPeriodMonths` from the purchase
    day, or ends on `warrantyEndsOn`: exactly one of the two."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{**_EXAMPLE, "store": "Coffee & Co", "price": 499.99}]}
    )

    name: Name
    brand: Text100
    category: Text100
    purchase_date: PurchaseDate
    warranty_period_months: Months | None = None
    warranty_ends_on: EndDay | None = None
    store: Text100 | None = None
    price: Price = None
    serial_number: Text100 | None = None
    household_id: HouseholdId | None = None

    # A new product needs its warranty's length or end day; an update keeps the product's own.
    _needs_warranty_end: ClassVar[bool] = True

    @model_validator(mode="wrap")
    @classmethod
    def _warranty_end_named(cls, data: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        """Neither `warrantyPeriodMonths` nor `warrantyEndsOn`: the length is named as missing in the same
        answer as every other field's problem, not on a second try once those are fixed."""
        if not cls._needs_warranty_end or not isinstance(data, dict) or _gives_warranty_end(data):
            return handler(data)
        problems: list[InitErrorDetails] = []
        try:
            handler(data)
        except ValidationError as error:
            problems = [
                {"type": PydanticCustomError(e["type"], e["msg"]), "loc": e["loc"], "input": e["input"]}
                for e in error.errors()
            ]
        missing = PydanticCustomError("missing", WARRANTY_LENGTH_REQUIRED)
        problems.append({"type": missing, "loc": ("warrantyPeriodMonths",), "input": data})
        raise ValidationError.from_exception_data(cls.__name__, problems)


def _gives_warranty_end(data: dict[Any, Any]) -> bool:
    return data.get("warrantyPeriodMonths") is not None or data.get("warrantyEndsOn") is not None


class ProductUpdate(ProductCreate):
    """Any subset of the create fields, with the same rules; only the fields sent change. The required
    fields may be left out but not set to null (the defaults below are never validated; a sent null is).
    Sending `warrantyPeriodMonths` or `warrantyEndsOn` switches the warranty to that one (the other
    becomes null). `householdId` shares (or with null unshares) it: its owner's and admins' alone."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"warrantyPeriodMonths": 36, "price": 450},
                {"householdId": 3},
                {"householdId": None},
            ]
        }
    )
    _needs_warranty_end: ClassVar[bool] = False

    name: Name = None  # type: ignore[assignment]
    brand: Text100 = None  # type: ignore[assignment]
    category: Text100 = None  # type: ignore[assignment]
    purchase_date: PurchaseDate = None  # type: ignore[assignment]

    def changes(self) -> dict[str, Any]:
        """attribute -> new value, for the fields the client sent."""
        return {name: getattr(self, name) for name in self.model_fields_set}


class WarrantyExtensionOut(ResponseModel):
    """A warranty extension: `months` from `startsOn` (the day its claim was resolved) to `endsOn`."""

    months: int = Field(examples=[12])
    starts_on: date = Field(examples=["2026-11-24"])
    ends_on: date = Field(examples=["2027-11-24"])


class ProductWarrantyExtension(WarrantyExtensionOut):
    """An extension as the product lists it, with the claim whose outcome left it."""

    claim_id: int


class ProductOwner(ResponseModel):
    """Whose product it is: the household members who see a shared product see its owner's name."""

    id: int = Field(examples=[42])
    name: str = Field(examples=["Ann Example"])


class ProductOut(ResponseModel):
    """A product as every endpoint answers it (list items, create, update, the detail's base)."""

    id: int
    name: str
    brand: str
    category: str
    store: str | None
    purchase_date: DayAsTimestamp
    warranty_period_months: int | None = Field(description="Null when the warranty ends on `warrantyEndsOn`.")
    warranty_ends_on: date | None = Field(
        description="The warranty's own end day when given directly (`YYYY-MM-DD`), else null."
    )
    price: PriceOut
    serial_number: str | None
    warranty_status: WarrantyStatus = Field(description="`void` while the warranty is voided.")
    warranty_expires_at: DayAsTimestamp = Field(
        description="The later of the own end and every warranty extension's end, at 00:00 UTC."
    )
    warranty_voided_at: IsoUtc | None = Field(description="When the warranty was voided; null if not.")
    warranty_void_reason: str | None = Field(description="Why it was voided; null if not.")
    warranty_extensions: list[ProductWarrantyExtension] = Field(
        default=[],
        description="The extensions its resolved claims left (repaired or replaced), newest first.",
    )
    has_active_claim: bool
    created_at: IsoUtc
    updated_at: IsoUtc
    household_id: int | None = Field(
        description="The household the owner shares it with (its members see it), or null.", examples=[3]
    )
    owner: ProductOwner = Field(description="Its owner: the caller, or the member who shares it with them.")

    @classmethod
    def of(
        cls,
        product: Product | Row[Any],
        *,
        owner_name: str,
        has_active_claim: bool,
        today: date,
        expiring_soon_days: int,
        extensions: Sequence[Row[Any]] = (),
    ) -> Self:
        """The product (or a row of its list columns) as shown on `today`, with its owner's name and its
        warranty `extensions` (app.products.extensions, newest first): its warranty status is computed at
        read time."""
        return cls.model_validate(
            {
                **{column: getattr(product, column) for column in _COLUMNS},
                "owner": {"id": product.owner_id, "name": owner_name},
                "warranty_expires_at": product.warranty_expires_on,
                "warranty_status": "void"
                if product.warranty_voided_at is not None
                else warranty_status(product.warranty_expires_on, today, expiring_soon_days),
                "has_active_claim": has_active_claim,
                "warranty_extensions": extensions,
            }
        )


_COLUMNS = (
    "id", "household_id", "name", "brand", "category", "store", "purchase_date", "warranty_period_months",
    "warranty_ends_on", "price", "serial_number", "warranty_voided_at", "warranty_void_reason", "created_at",
    "updated_at",
)  # fmt: skip


class ReceiptOut(ResponseModel):
    id: int
    file_name: str = Field(examples=["invoice.pdf"])
    file_type: str = Field(examples=["pdf"])
    mime_type: str = Field(examples=["application/pdf"])
    size: int
    created_at: IsoUtc
    url: str = Field(examples=["/api/products/1/receipts/3/file"])


class ProductClaim(ResponseModel):
    """A claim as the single-product response lists it."""

    id: int
    status: str
    description: str
    created_at: IsoUtc


class ProductDetail(ProductOut):
    receipts: list[ReceiptOut]
    claims: list[ProductClaim]


def receipt_url(product_id: int, receipt_id: int) -> str:
    return f"/api/products/{product_id}/receipts/{receipt_id}/file"


class WarrantyVoid(RequestModel):
    reason: str = Field(min_length=1, max_length=500, examples=["Opened and repaired by a third party."])
