"""The claims API (docs/api.md §6.3): list items, the detail, and the request bodies."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import ConfigDict, Field, ValidationInfo, field_validator

from app.api.schemas import IsoUtc, RequestModel, ResponseModel
from app.core.ids import MAX_ID
from app.models import ReturnAuthorization
from app.models.enums import ClaimStatus, ClaimStatusName
from app.products.schemas import Months, WarrantyExtensionOut
from app.ratings.schemas import RatingOut
from app.webhooks import payloads

ClaimOutcome = Literal["repaired", "replaced", "refunded", "rejected"]
EXTENDING_OUTCOMES = ("repaired", "replaced")  # the outcomes that may give the item a new warranty


class ClaimCreate(RequestModel):
    product_id: int = Field(ge=1, le=MAX_ID, description="One of the caller's products.")
    description: str = Field(min_length=1, max_length=5000, examples=["The pump stopped working."])


class StatusChange(RequestModel):
    """The new status; resolving may record the outcome (docs/api.md §6.2). The outcome fields go only with
    `resolved`, a note only with an outcome, `newWarrantyMonths` only with `repaired` or `replaced`
    (else 400 VALIDATION_FAILED, like a bad status, before anything else); null is the same as leaving a
    field out."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "status": "resolved",
                    "outcome": "repaired",
                    "outcomeNote": "Replaced the pump; tested for an hour.",
                    "newWarrantyMonths": 12,
                },
                {"status": "in_progress"},
            ]
        }
    )

    status: ClaimStatusName
    outcome: ClaimOutcome | None = Field(default=None, description="How the claim was resolved.")
    outcome_note: str | None = Field(
        default=None, min_length=1, max_length=5000, description="What was done, for the customer."
    )
    new_warranty_months: Months | None = Field(
        default=None,
        description="A repaired or replaced item's new warranty, in months from the resolution day (UTC).",
    )

    @field_validator("outcome", "outcome_note", "new_warranty_months")
    @classmethod
    def _fits_the_move(cls, value: object, info: ValidationInfo) -> object:
        """Each outcome field only where it means something (the fields before it are checked by now)."""
        if value is None:
            return value
        if info.data.get("status") != ClaimStatus.RESOLVED:
            raise ValueError("may only be given with status resolved")
        outcome = info.data.get("outcome")
        if info.field_name != "outcome" and outcome is None:
            raise ValueError("may only be given with an outcome")
        if info.field_name == "new_warranty_months" and outcome not in EXTENDING_OUTCOMES:
            raise ValueError("may only be given with outcome repaired or replaced")
        return value


class SupplierAssign(RequestModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"supplierId": 9}, {"supplierId": None}]})

    supplier_id: int | None = Field(
        ge=1,
        le=MAX_ID,
        description="A ROLE_SUPPLIER user (a member of a routed claim's organization); null unassigns.",
    )


class OrganizationAssign(RequestModel):
    """Where to hand the claim on (docs/api.md, "Routing and the queue")."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"organizationId": 4}, {"organizationId": None}]}
    )

    organization_id: int | None = Field(
        ge=1, le=MAX_ID, description="A supplier organization; null leaves the claim to the admins."
    )


class ClaimOrganization(ResponseModel):
    """The supplier organization a claim is routed to (contract 17.6)."""

    id: int = Field(examples=[3])
    name: str = Field(examples=["Acme Service"])


def organization_of(row: Any) -> ClaimOrganization | None:
    """`organization` from a row's `organization_id` and `organization_name`."""
    if row.organization_id is None:
        return None
    return ClaimOrganization(id=row.organization_id, name=row.organization_name)


SlaBreach = Literal["first_response", "resolution"]
_SLA_EXAMPLE: dict[str, Any] = {
    "firstResponseDueAt": "2026-11-30T09:00:00+00:00",
    "firstRespondedAt": "2026-11-27T10:12:00+00:00",
    "resolutionDueAt": None,
    "resolvedAt": None,
    "paused": True,
    "breached": [],
}


class ClaimSla(ResponseModel):
    """A routed claim's deadlines (contract 17.8; docs/api.md, "Deadlines"), counted in its organization's
    business hours. `resolutionDueAt` is null while the clock is paused (the claim waits for its
    customer) and once resolved."""

    model_config = ConfigDict(json_schema_extra={"examples": [_SLA_EXAMPLE]})

    first_response_due_at: IsoUtc | None = Field(description="When the first response is due.")
    first_responded_at: IsoUtc | None = Field(
        description="The first supplier-side message or status change; null until then."
    )
    resolution_due_at: IsoUtc | None = Field(description="When the resolution is due; null while paused.")
    resolved_at: IsoUtc | None = Field(description="When it became resolved (or closed); null until then.")
    paused: bool = Field(description="The resolution clock waits for the customer's next message.")
    breached: list[SlaBreach] = Field(description="The deadlines that passed unmet, each once recorded.")


def sla_of(row: Any) -> ClaimSla | None:
    """`sla` from a row's joined deadline columns (`sla_*`); null for an unrouted claim (no row)."""
    if row.sla_started_at is None:
        return None
    breached: list[SlaBreach] = []
    if row.sla_first_response_breached_at is not None:
        breached.append("first_response")
    if row.sla_resolution_breached_at is not None:
        breached.append("resolution")
    return ClaimSla(
        first_response_due_at=row.sla_first_response_due_at,
        first_responded_at=row.sla_first_responded_at,
        resolution_due_at=row.sla_resolution_due_at,
        resolved_at=row.sla_resolved_at,
        paused=row.sla_paused_since is not None,
        breached=breached,
    )


class MuteState(ResponseModel):
    """Whether the caller hears of the claim's messages and status changes (email, push)."""

    claim_id: int = Field(examples=[42])
    muted: bool = Field(examples=[True])


class ClaimListItem(ResponseModel):
    id: int
    type: Literal["claim"] = "claim"
    product_id: int
    product_name: str
    product_brand: str
    customer_id: int
    customer_email: str
    status: ClaimStatusName
    description: str
    created_at: IsoUtc
    message_count: int
    organization: ClaimOrganization | None = Field(
        description="The supplier organization the claim is routed to; null when unrouted."
    )

    @classmethod
    def of(cls, row: Any) -> Self:
        """An item from a list row (the claim's columns, with its organization's id and name joined)."""
        return cls.model_validate(_fields(cls, row) | {"organization": organization_of(row)})


class QueueItem(ClaimListItem):
    """A claim in its organization's queue: the list item, the agent working it and its deadlines."""

    supplier_id: int | None = Field(description="The assigned agent; null while nobody has taken it.")
    sla: ClaimSla | None = Field(description="Its deadlines (contract 17.8).")

    @classmethod
    def of(cls, row: Any) -> Self:
        fields = _fields(cls, row) | {"organization": organization_of(row), "sla": sla_of(row)}
        return cls.model_validate(fields)


def _fields(model: type[ClaimListItem], row: Any) -> dict[str, Any]:
    """The model's plain fields, read from the row by name."""
    skipped = ("type", "organization", "sla")
    return {name: getattr(row, name) for name in model.model_fields if name not in skipped}


class ClaimProduct(ResponseModel):
    id: int
    name: str
    brand: str


class ClaimMessage(ResponseModel):
    """A message inside the claim detail (docs/api.md §6.3: integer ids; `senderId` null once deleted)."""

    id: int
    sender_id: int | None
    message: str
    created_at: IsoUtc


class ClaimRma(ResponseModel):
    """A claim's return authorisation (contract 17.10, docs/api.md "Returns")."""

    number: str = Field(
        description="`RMA-<year>-<6 digits>`, unique across the service.", examples=["RMA-2026-000042"]
    )
    issued_at: IsoUtc
    instructions: str | None = Field(examples=["Pack it in its box; drop it at any post office."])
    label_url: str | None = Field(
        description="The return label (a PDF) for the claim's participants; null without one.",
        examples=["/api/claims/42/rma/label"],
    )


def claim_rma(row: ReturnAuthorization | None) -> ClaimRma | None:
    """The detail's `rma` from the claim's row (None: none issued)."""
    return None if row is None else ClaimRma.model_validate(payloads.rma(row))


class ClaimDetail(ResponseModel):
    id: int
    status: ClaimStatusName
    description: str
    product: ClaimProduct
    product_id: int
    customer_id: int
    supplier_id: int | None
    organization: ClaimOrganization | None = Field(
        description="The supplier organization the claim is routed to; null when unrouted."
    )
    sla: ClaimSla | None = Field(
        description="Its deadlines (contract 17.8); null when unrouted.", examples=[_SLA_EXAMPLE]
    )
    messages: list[ClaimMessage] = Field(
        description="The newest 200 messages at most, oldest first among them; the messages API pages all."
    )
    has_more_messages: bool = Field(description="Whether the claim has older messages than `messages` shows.")
    outcome: ClaimOutcome | None = Field(
        description="How it was resolved; null until then and after a reopen."
    )
    outcome_note: str | None
    warranty_extension: WarrantyExtensionOut | None = Field(
        description="The warranty its resolution gave the product (repaired or replaced), else null."
    )
    rma: ClaimRma | None = Field(description="Its return authorisation (`POST .../rma`); null while none.")
    rating: RatingOut | None = Field(
        description="Its customer's rating (`POST /api/claims/{id}/rating`), else null."
    )
    created_at: IsoUtc
    updated_at: IsoUtc
