"""The domain changes services record, one frozen dataclass each: what changed, carrying the rows (or ids)
its consequences need. Recorded with `app.changes.dispatch.record` by the service that makes the change,
after the change is written and in its transaction; what each one causes is `dispatch.CONSEQUENCES`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.models import Claim, ClaimRating, Message, ReturnAuthorization, User, WarrantyExtension
from app.models.enums import ClaimStatus


@dataclass(frozen=True)
class ClaimOpened:
    claim: Claim
    customer: User


@dataclass(frozen=True)
class ClaimStatusChanged:
    """`claim.status` is the new status (its outcome recorded, for a resolution); `extension` is the
    warranty extension the claim leaves on its product after the change, if any."""

    claim: Claim
    former: ClaimStatus
    actor: User
    extension: WarrantyExtension | None


@dataclass(frozen=True)
class SupplierAssigned:
    """`claim.supplier_id` is the new supplier, or None: the supplier was removed."""

    claim: Claim
    former: int | None
    actor: User


@dataclass(frozen=True)
class ClaimHandedOn:
    """The claim was handed on from organisation `former` to `claim.organization_id` (None: to none);
    its agent, if it had one, was unassigned first (a SupplierAssigned of its own)."""

    claim: Claim
    former: int | None
    actor: User


@dataclass(frozen=True)
class SlaManager:
    """A manager of the organisation of a claim whose deadline passed, as the breach email needs them."""

    user_id: int
    email_enabled: bool


@dataclass(frozen=True)
class SlaBreached:
    """A routed claim's deadline (`which`: first_response or resolution) passed unmet at `due_at`; the
    breach job recorded it once (app.organizations.breaches). `managers`: its organisation's managers."""

    claim_id: int
    organization_id: int
    which: str
    due_at: datetime
    managers: tuple[SlaManager, ...]


@dataclass(frozen=True)
class MessagePosted:
    """Posted in the app or by email (the inbound service posts through the messages service)."""

    message: Message
    claim: Claim
    sender: User


@dataclass(frozen=True)
class RmaIssued:
    """A return authorisation was issued for the claim (contract 17.10)."""

    claim: Claim
    rma: ReturnAuthorization
    actor: User


@dataclass(frozen=True)
class ClaimRated:
    """The claim's customer rated it (contract 17.11)."""

    claim: Claim
    rating: ClaimRating
    customer: User


@dataclass(frozen=True)
class MessagesRead:
    """`message_ids` (oldest first) newly read by `reader`; `receipt`: the reader is a participant, so the
    sender is told (an admin looking on is not a read receipt)."""

    claim: Claim
    reader: User
    message_ids: tuple[int, ...]
    read_at: datetime
    receipt: bool


@dataclass(frozen=True)
class InboundAccepted:
    """An email of a participant became `message` (its MessagePosted is recorded too)."""

    claim: Claim
    sender: User
    message: Message


@dataclass(frozen=True)
class InboundIgnored:
    """An email that posted nothing, and why. `claim` is a bare id, and `sender` None, when the sender is not
    known to be a participant: nobody is proven to have sent it."""

    claim: Claim | int
    sender: User | None
    reason: str
    address: str | None  # the From address as the email gave it


@dataclass(frozen=True)
class ProductsChanged:
    """One owner's products were created, edited, voided or restored, shared or unshared, or their receipts
    changed. `household_ids`: the households they are (or were, before a change of sharing) shared with;
    `member_ids`: those households' members (read with the change, app.access.households), whose product
    lists show them too."""

    owner_id: int
    household_ids: tuple[int, ...] = ()
    member_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class ProductDeleted:
    """With its receipts, claims and messages."""

    product_id: int


@dataclass(frozen=True)
class HouseholdAccessChanged:
    """What these users see of a household's shared products and claims changed: they joined or left it,
    were removed, the household was deleted, or a product was shared with it or unshared. Access ends at
    once: their open hub streams are re-checked as soon as the change commits."""

    household_id: int
    user_ids: tuple[int, ...]


@dataclass(frozen=True)
class OrganizationAccessEnded:
    """These users no longer work for the organisation (removed, or it was deleted): they no longer see
    its claims, at once: their open hub streams are re-checked as soon as the change commits."""

    organization_id: int
    user_ids: tuple[int, ...]


@dataclass(frozen=True)
class OrganizationRenamed:
    """An organisation was renamed or deleted: the claim lists showing its name are stale."""

    organization_id: int


@dataclass(frozen=True)
class UserChanged:
    """An account was created or its fields (roles, name, picture, ...) changed."""

    user_id: int


@dataclass(frozen=True)
class UserDeleted:
    """With everything it owned; its messages in other people's claims stay, by "Deleted user"."""

    user_id: int


@dataclass(frozen=True)
class WarrantyAlert:
    """`product`: the expiry job's row (id, name, brand, category, warranty_expires_on, owner_id, and the
    owner's notifications_enabled and email_notifications_enabled)."""

    product: Any
    threshold_days: int  # the smallest threshold the product is within
    days_left: int


@dataclass(frozen=True)
class WarrantiesExpiring:
    """First alerts for products whose warranty ends within a threshold (the send-expiry-alerts job, one
    change per batch of products: its webhooks take one query for the subscribers)."""

    alerts: tuple[WarrantyAlert, ...]


Change = (
    ClaimOpened
    | ClaimStatusChanged
    | SupplierAssigned
    | ClaimHandedOn
    | SlaBreached
    | MessagePosted
    | RmaIssued
    | ClaimRated
    | MessagesRead
    | InboundAccepted
    | InboundIgnored
    | ProductsChanged
    | ProductDeleted
    | HouseholdAccessChanged
    | OrganizationAccessEnded
    | OrganizationRenamed
    | UserChanged
    | UserDeleted
    | WarrantiesExpiring
)
