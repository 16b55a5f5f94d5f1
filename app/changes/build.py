"""What the steps of `app.changes.dispatch.CONSEQUENCES` carry, built from the change: timeline entries,
hub payloads, notification payloads and recipients, webhook data, page-cache scopes."""

from __future__ import annotations

from typing import Any

from app.changes import hub_payloads as hub
from app.changes.consequences import Entry, Notice, Recording
from app.changes.events import (
    ClaimHandedOn,
    ClaimOpened,
    ClaimRated,
    ClaimStatusChanged,
    HouseholdAccessChanged,
    InboundAccepted,
    InboundIgnored,
    MessagePosted,
    MessagesRead,
    OrganizationAccessEnded,
    ProductsChanged,
    RmaIssued,
    SlaBreached,
    SupplierAssigned,
    WarrantiesExpiring,
)
from app.core.clock import iso_utc
from app.models import Claim, User
from app.models.enums import ClaimStatus
from app.pagecache.cache import EVERYTHING
from app.pagecache.scopes import (
    MESSAGES_ALL,
    ORGANIZATIONS_ALL,
    PRODUCTS_ALL,
    USERS_ALL,
    claim_scopes,
    messages_of,
    people_pages,
    products_of,
)
from app.webhooks import payloads

ClaimChange = ClaimOpened | ClaimStatusChanged | SupplierAssigned | MessagePosted


# Timeline entries


async def claim_created(recording: Recording[ClaimOpened]) -> Entry:
    """Its status, and the organisation a routed claim went to (an unrouted claim's entry is as before)."""
    claim = recording.change.claim
    data: dict[str, Any] = {"status": claim.status}
    if claim.organization_id is not None:
        data["organizationId"] = claim.organization_id
    return Entry(claim, recording.change.customer, data)


async def organization_changed(recording: Recording[ClaimHandedOn]) -> Entry:
    change = recording.change
    data = {"organizationId": change.claim.organization_id, "previousOrganizationId": change.former}
    return Entry(change.claim, change.actor, data)


async def claim_rated(recording: Recording[ClaimRated]) -> Entry:
    """The score only: the comment is read with the claim (its `rating`)."""
    change = recording.change
    return Entry(change.claim, change.customer, {"score": change.rating.score})


async def status_moved(recording: Recording[ClaimStatusChanged]) -> Entry:
    """From and to, and for a resolution with an outcome the outcome as webhooks show it."""
    change = recording.change
    moved: dict[str, Any] = {"from": change.former, "to": change.claim.status}
    if _tells_outcome(change.claim):
        moved |= _resolution(recording)
    return Entry(change.claim, change.actor, moved)


async def supplier_assigned(recording: Recording[SupplierAssigned]) -> Entry | None:
    change = recording.change
    if change.claim.supplier_id is None:
        return None
    data = {"supplierId": change.claim.supplier_id, "previousSupplierId": change.former}
    return Entry(change.claim, change.actor, data)


async def supplier_unassigned(recording: Recording[SupplierAssigned]) -> Entry | None:
    change = recording.change
    if change.claim.supplier_id is not None:
        return None
    return Entry(change.claim, change.actor, {"supplierId": change.former})


async def message_posted(recording: Recording[MessagePosted]) -> Entry:
    change = recording.change
    return Entry(change.claim, change.sender, {"messageId": change.message.id, "senderId": change.sender.id})


async def rma_issued(recording: Recording[RmaIssued]) -> Entry:
    change = recording.change
    return Entry(change.claim, change.actor, {"number": change.rma.number})


async def inbound_accepted(recording: Recording[InboundAccepted]) -> Entry:
    change = recording.change
    return Entry(change.claim, change.sender, {"messageId": change.message.id, "sender": change.sender.email})


async def inbound_ignored(recording: Recording[InboundIgnored]) -> Entry:
    change = recording.change
    return Entry(change.claim, change.sender, {"reason": change.reason, "sender": change.address})


async def sla_breached(recording: Recording[SlaBreached]) -> Entry:
    """By the service itself (no actor): which deadline, when it was due, and whose it was."""
    change = recording.change
    data = {"which": change.which, "dueAt": iso_utc(change.due_at), "organizationId": change.organization_id}
    return Entry(change.claim_id, None, data)


# Hub payloads (docs/api.md, real-time events)


def status_update(change: ClaimStatusChanged) -> dict[str, Any]:
    return hub.status_update(change.claim)


def new_message(change: MessagePosted) -> dict[str, Any]:
    return hub.new_message(change.message, change.sender)


def messages_read(change: MessagesRead) -> dict[str, Any]:
    return hub.messages_read(change.message_ids, change.read_at)


def rma_event(change: RmaIssued) -> dict[str, Any]:
    return hub.rma_issued(change.claim, change.rma)


def is_receipt(change: MessagesRead) -> bool:
    return change.receipt


# Notifications: payloads and recipients


async def other_participants(
    recording: Recording[ClaimStatusChanged] | Recording[MessagePosted],
) -> list[User]:
    """Every participant (customer, assigned supplier, the household members of its product) who has
    not muted the claim, except the one who acted."""
    change = recording.change
    actor = change.actor if isinstance(change, ClaimStatusChanged) else change.sender
    seen: dict[int, User] = {}
    for user in await recording.participants(change.claim):
        if user.id != actor.id:
            seen.setdefault(user.id, user)
    return list(seen.values())


async def status_news(recording: Recording[ClaimStatusChanged]) -> dict[str, Any]:
    claim = recording.change.claim
    news: dict[str, Any] = {"claimId": claim.id, "status": claim.status}
    resolution = _resolution(recording)
    if _tells_outcome(claim):
        news |= resolution  # the resolution's email tells the outcome
    return news


def rma_notice(change: RmaIssued) -> dict[str, Any]:
    """The customer's email: the number, the instructions and the label (read when it is sent)."""
    return {"claimId": change.claim.id, "recipientId": change.claim.customer_id}


def expiry_notices(change: WarrantiesExpiring) -> list[Notice]:
    """The owner's alert: {"productId", "thresholdDays", "expiresOn", "recipientId"}."""
    notices = []
    for alert in change.alerts:
        product = alert.product
        payload = {
            "productId": product.id,
            "thresholdDays": alert.threshold_days,
            "expiresOn": product.warranty_expires_on.isoformat(),
            "recipientId": product.owner_id,
        }
        notices.append(Notice(product.email_notifications_enabled, product.notifications_enabled, payload))
    return notices


def breach_notices(change: SlaBreached) -> list[Notice]:
    """An email to each manager of the organisation who has email notifications on (no push)."""
    payload = breach_data_of(change)
    return [
        Notice(manager.email_enabled, False, {**payload, "recipientId": manager.user_id})
        for manager in change.managers
    ]


async def message_news(recording: Recording[MessagePosted]) -> dict[str, Any]:
    message = recording.change.message
    return {"messageId": message.id, "claimId": message.claim_id}


# Webhook data (app.webhooks.payloads)


async def claim_data(recording: Recording[ClaimOpened]) -> dict[str, Any]:
    return {"claim": payloads.claim(recording.change.claim)}


async def status_changed_data(recording: Recording[ClaimStatusChanged]) -> dict[str, Any]:
    change = recording.change
    return {
        "claim": payloads.claim(change.claim) | _resolution(recording),
        "previousStatus": change.former,
        "actorId": change.actor.id,
    }


async def supplier_data(recording: Recording[SupplierAssigned]) -> dict[str, Any]:
    change = recording.change
    return {
        "claim": payloads.claim(change.claim),
        "previousSupplierId": change.former,
        "actorId": change.actor.id,
    }


async def message_data(recording: Recording[MessagePosted]) -> dict[str, Any]:
    change = recording.change
    return {"message": payloads.message(change.message, change.sender), "claimId": change.message.claim_id}


async def rma_data(recording: Recording[RmaIssued]) -> dict[str, Any]:
    change = recording.change
    return {
        "claim": payloads.claim(change.claim),
        "rma": payloads.rma(change.rma),
        "actorId": change.actor.id,
    }


def breach_data_of(change: SlaBreached) -> dict[str, Any]:
    return {
        "claimId": change.claim_id,
        "organizationId": change.organization_id,
        "which": change.which,
        "dueAt": iso_utc(change.due_at),
    }


async def breach_data(recording: Recording[SlaBreached]) -> dict[str, Any]:
    return breach_data_of(recording.change)


def expiring_products(change: WarrantiesExpiring) -> list[dict[str, Any]]:
    return [payloads.expiring_product(a.product, a.threshold_days, a.days_left) for a in change.alerts]


# Page-cache scopes (app.pagecache.scopes)


def claim_pages(change: ClaimOpened | ClaimStatusChanged | ClaimHandedOn) -> list[str]:
    """The claim lists showing it, and its customer's product pages (hasActiveClaim, the claim list)."""
    claim = change.claim
    return [*claim_scopes(claim), products_of(claim.customer_id), PRODUCTS_ALL]


def supplier_pages(change: SupplierAssigned) -> list[str]:
    """The claim's pages for its former supplier too, and its messages (read receipts depend on who
    supplies it)."""
    claim = change.claim
    return [
        *claim_scopes(claim, change.former),
        products_of(claim.customer_id),
        PRODUCTS_ALL,
        messages_of(claim.id),
        MESSAGES_ALL,
    ]


def message_pages(change: MessagePosted) -> list[str]:
    return [*claim_scopes(change.claim), messages_of(change.claim.id), MESSAGES_ALL]


def read_pages(change: MessagesRead) -> list[str]:
    return [messages_of(change.claim.id), MESSAGES_ALL]


def owner_products(change: ProductsChanged) -> list[str]:
    """The owner's product lists, and each member's of the households the products are (or were) shared
    with."""
    people = {change.owner_id, *change.member_ids}
    return [*(products_of(user_id) for user_id in sorted(people)), PRODUCTS_ALL]


def user_pages(_: object) -> list[str]:
    return [USERS_ALL]


def every_page(_: object) -> list[str]:
    return [EVERYTHING]


def _tells_outcome(claim: Claim) -> bool:
    return claim.status == ClaimStatus.RESOLVED and claim.outcome is not None


def _resolution(recording: Recording[ClaimStatusChanged]) -> dict[str, Any]:
    """The claim's outcome and warranty extension as webhooks show them."""
    return payloads.outcome(recording.change.claim, recording.change.extension)


# Access


def access_pages(change: HouseholdAccessChanged | OrganizationAccessEnded) -> list[str]:
    return people_pages(change.user_ids)


def organization_pages(_: object) -> list[str]:
    return [ORGANIZATIONS_ALL]


def access_news(change: HouseholdAccessChanged | OrganizationAccessEnded) -> dict[str, Any]:
    """The hub's internal note (app.realtime.topics.ACCESS_TOPIC): whose open streams to re-check."""
    return {"userIds": sorted(set(change.user_ids))}
