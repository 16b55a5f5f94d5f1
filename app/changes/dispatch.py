"""What a change causes: one row per domain change, its consequences in the order they run. "What happens
after X?" is the row of X; adding a consequence (a webhook type, a notification) is a step in a row, and
nothing in the service that records X changes. docs/architecture.md "What a change causes" is this table
in prose.

`record(session, change)` runs the change's row at once, in the caller's transaction: outbox rows and
webhook deliveries are inserted with the change, hub events are written with it and delivered after
commit, so a rolled-back change causes nothing. Steps run in one order: timeline, hub, notifications,
webhook, cache (the supplier's row invalidates before its webhook, as it always has).

Not here, because they are not changes a service makes: the outbox worker's results (`notification.*`
timeline entries, app.timeline.record.notification_finished), an admin's redelivery of a webhook, and a
password reset request (app.auth.service queues its email; the token is minted when it is sent).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.changes import build
from app.changes.consequences import (
    Cache,
    Consequence,
    HouseholdCache,
    Hub,
    Mail,
    NotificationKinds,
    Notify,
    NotifyEach,
    NotifyOrganization,
    Recording,
    Timeline,
    Webhook,
    WebhookEach,
)
from app.changes.events import (
    Change,
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
    OrganizationRenamed,
    ProductDeleted,
    ProductsChanged,
    RmaIssued,
    SlaBreached,
    SupplierAssigned,
    UserChanged,
    UserDeleted,
    WarrantiesExpiring,
)
from app.models.enums import OutboxKind
from app.realtime.publishing import messages_topic, status_topic
from app.realtime.topics import ACCESS_TOPIC
from app.timeline.record import TimelineKind

CLAIM_MESSAGE = NotificationKinds(
    OutboxKind.EMAIL_CLAIM_MESSAGE,
    OutboxKind.PUSH_CLAIM_MESSAGE,
    OutboxKind.WEBPUSH_CLAIM_MESSAGE,
    OutboxKind.APPRISE_CLAIM_MESSAGE,
)
CLAIM_STATUS = NotificationKinds(
    OutboxKind.EMAIL_CLAIM_STATUS,
    OutboxKind.PUSH_CLAIM_STATUS,
    OutboxKind.WEBPUSH_CLAIM_STATUS,
    OutboxKind.APPRISE_CLAIM_STATUS,
)
EXPIRY_ALERT = NotificationKinds(
    OutboxKind.EMAIL_EXPIRY_ALERT,
    OutboxKind.PUSH_EXPIRY_ALERT,
    OutboxKind.WEBPUSH_EXPIRY_ALERT,
    OutboxKind.APPRISE_EXPIRY_ALERT,
)
# An email only: its notices never push (Notice.push is False), so no other channel is used.
SLA_BREACH = NotificationKinds(*[OutboxKind.EMAIL_SLA_BREACHED] * 4)

CONSEQUENCES: dict[type[Any], tuple[Consequence[Any], ...]] = {
    ClaimOpened: (
        Timeline(TimelineKind.CLAIM_CREATED, build.claim_created),
        Webhook("claim.created", build.claim_data),
        Cache(build.claim_pages),
        HouseholdCache(lambda change: change.claim),  # the lists of the household that shares the product
    ),
    ClaimStatusChanged: (
        Timeline(TimelineKind.STATUS_CHANGED, build.status_moved),
        Hub(lambda change: status_topic(change.claim.id), build.status_update),
        Notify(CLAIM_STATUS, build.status_news, to=build.other_participants),
        NotifyOrganization(OutboxKind.EMAIL_CLAIM_STATUS, build.status_news, lambda change: change.claim),
        Webhook("claim.status_changed", build.status_changed_data),
        Cache(build.claim_pages),
        HouseholdCache(lambda change: change.claim),
    ),
    SupplierAssigned: (
        Timeline(TimelineKind.SUPPLIER_ASSIGNED, build.supplier_assigned),
        Timeline(TimelineKind.SUPPLIER_UNASSIGNED, build.supplier_unassigned),
        Cache(build.supplier_pages),  # who sees the claim's lists and messages
        HouseholdCache(lambda change: change.claim),
        Webhook("claim.supplier_assigned", build.supplier_data),
    ),
    ClaimHandedOn: (  # its agent's unassignment, if any, is a SupplierAssigned recorded before
        Timeline(TimelineKind.ORGANIZATION_CHANGED, build.organization_changed),
        Cache(build.claim_pages),
        HouseholdCache(lambda change: change.claim),
    ),
    SlaBreached: (  # recorded by the breach job (app.organizations.breaches), once per missed deadline
        Timeline(TimelineKind.SLA_BREACHED, build.sla_breached),
        NotifyEach(SLA_BREACH, build.breach_notices),  # to the organisation's managers
        Webhook("claim.sla_breached", build.breach_data),
    ),
    MessagePosted: (
        Timeline(TimelineKind.MESSAGE_POSTED, build.message_posted),
        Hub(lambda change: messages_topic(change.claim.id), build.new_message),
        Notify(CLAIM_MESSAGE, build.message_news, to=build.other_participants),
        NotifyOrganization(OutboxKind.EMAIL_CLAIM_MESSAGE, build.message_news, lambda change: change.claim),
        Webhook("message.created", build.message_data),
        Cache(build.message_pages),
        HouseholdCache(lambda change: change.claim),
    ),
    RmaIssued: (
        Timeline(TimelineKind.RMA_ISSUED, build.rma_issued),
        Hub(lambda change: status_topic(change.claim.id), build.rma_event),
        Mail(OutboxKind.EMAIL_RMA_ISSUED, build.rma_notice),  # to the customer, the label attached
        Webhook("claim.rma_issued", build.rma_data),
    ),
    ClaimRated: (Timeline(TimelineKind.CLAIM_RATED, build.claim_rated),),  # the report reads the table
    MessagesRead: (
        Hub(lambda change: messages_topic(change.claim.id), build.messages_read, when=build.is_receipt),
        Cache(build.read_pages),
    ),
    InboundAccepted: (Timeline(TimelineKind.INBOUND_ACCEPTED, build.inbound_accepted),),
    InboundIgnored: (Timeline(TimelineKind.INBOUND_IGNORED, build.inbound_ignored),),
    ProductsChanged: (Cache(build.owner_products),),
    ProductDeleted: (Cache(build.every_page),),  # its claims and messages leave every kind of page
    HouseholdAccessChanged: (
        Cache(build.access_pages),
        Hub(lambda _: ACCESS_TOPIC, build.access_news),  # their open streams are re-checked at once
    ),
    OrganizationAccessEnded: (
        Cache(build.access_pages),
        Hub(lambda _: ACCESS_TOPIC, build.access_news),  # their open streams of its claims end at once
    ),
    OrganizationRenamed: (Cache(build.organization_pages),),  # claim lists show `organization.name`
    UserChanged: (Cache(build.user_pages),),
    UserDeleted: (Cache(build.every_page),),  # their data leaves every list; names on other pages change
    WarrantiesExpiring: (
        NotifyEach(EXPIRY_ALERT, build.expiry_notices),  # to each product's owner
        WebhookEach("product.warranty_expiring", build.expiring_products),
    ),
}


async def record(session: AsyncSession, change: Change) -> None:
    """Run what `change` causes, in `session`'s transaction (see the module's docstring)."""
    recording = Recording(session, change)
    for step in CONSEQUENCES[type(change)]:
        await step.apply(recording)
