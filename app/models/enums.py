"""The vocabularies of the tables: every StrEnum a column stores, with the Literal of the same names that
request and response fields take (tests/test_vocabularies.py holds each pair equal). Who may move a claim
between statuses: app.claims.transitions; how each outbox kind is handled: its handler's package."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal


# Account roles, stored as a JSON list on the user (ADMIN > SUPPLIER > USER: `User.effective_roles`).
class Role(StrEnum):
    USER = "ROLE_USER"
    SUPPLIER = "ROLE_SUPPLIER"
    ADMIN = "ROLE_ADMIN"


# As request and response fields take them (tests/test_vocabularies.py holds it equal to `Role`).
RoleName = Literal["ROLE_USER", "ROLE_SUPPLIER", "ROLE_ADMIN"]


# The claim lifecycle's statuses (who may move a claim between them: app.claims.transitions).
class ClaimStatus(StrEnum):
    OPEN = "open"
    IN_PROGRESS = "in_progress"
    RESOLVED = "resolved"
    CLOSED = "closed"  # the one status a product's active claim cannot have


# The same names as request and response fields take them: a Literal keeps the OpenAPI schema and the
# validation errors the API has always had (tests/test_vocabularies.py holds the two equal).
ClaimStatusName = Literal["open", "in_progress", "resolved", "closed"]


# A household member's role (contract 17.1): owners manage the household and its members, members see and
# edit its products and talk in their claims, viewers only read.
class HouseholdRole(StrEnum):
    OWNER = "owner"
    MEMBER = "member"
    VIEWER = "viewer"


# As request and response fields take them (tests/test_vocabularies.py holds it equal to `HouseholdRole`).
HouseholdRoleName = Literal["owner", "member", "viewer"]
InvitedRoleName = Literal["member", "viewer"]  # an invitation never makes an owner


# A supplier organisation member's role (contract 17.5): managers manage its members and hand claims on,
# agents work its queue.
class OrganizationRole(StrEnum):
    MANAGER = "manager"
    AGENT = "agent"


# As request and response fields take them (tests/test_vocabularies.py holds it equal to `OrganizationRole`).
OrganizationRoleName = Literal["manager", "agent"]


# The platforms a device token is registered for (how each is pushed: app.notifications.push).
class Platform(StrEnum):
    IOS = "ios"
    ANDROID = "android"
    WEB = "web"  # an FCM registration token, pushed the Android way


# As POST /api/devices takes it (tests/test_vocabularies.py holds it equal to `Platform`).
PlatformName = Literal["ios", "android", "web"]


# An outbox row's states: pending until the worker finishes it as done, failed (after its last attempt, or
# at once for an error no retry can fix) or skipped (nothing to send any more).
class OutboxState(StrEnum):
    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"


# As the admin list filters on it (tests/test_vocabularies.py holds it equal to `OutboxState`).
OutboxStateName = Literal["pending", "done", "failed", "skipped"]


# Outbox kinds: what an outbox row asks the worker to do, each with its handler
# (app.notifications.outbox_handlers, app.webhooks.delivery). `channel.notification`: the channel names
# the timeline entry of a claim's notification (app.timeline.record).
class OutboxKind(StrEnum):
    EMAIL_CLAIM_MESSAGE = "email.claim_message"  # {"messageId", "claimId", "recipientId"}
    PUSH_CLAIM_MESSAGE = "push.claim_message"
    EMAIL_CLAIM_STATUS = "email.claim_status"  # {"claimId", "status", "recipientId"}, + outcome when resolved
    PUSH_CLAIM_STATUS = "push.claim_status"
    EMAIL_EXPIRY_ALERT = "email.expiry_alert"  # {"productId", "thresholdDays", "expiresOn", "recipientId"}
    PUSH_EXPIRY_ALERT = "push.expiry_alert"
    EMAIL_PASSWORD_RESET = "email.password_reset"  # {"email"}
    EMAIL_HOUSEHOLD_INVITATION = "email.household_invitation"  # {"invitationId"}
    # One per (event, browser subscription) and per (event, notification URL), as the push they go with,
    # plus "subscriptionId" / "targetId" (contract 19).
    WEBPUSH_CLAIM_MESSAGE = "webpush.claim_message"
    WEBPUSH_CLAIM_STATUS = "webpush.claim_status"
    WEBPUSH_EXPIRY_ALERT = "webpush.expiry_alert"
    APPRISE_CLAIM_MESSAGE = "apprise.claim_message"
    APPRISE_CLAIM_STATUS = "apprise.claim_status"
    APPRISE_EXPIRY_ALERT = "apprise.expiry_alert"
    EMAIL_RMA_ISSUED = "email.rma_issued"  # {"claimId", "recipientId"}: the customer, label attached
    # {"claimId", "organizationId", "which", "dueAt", "recipientId"}: a missed deadline, to each manager
    EMAIL_SLA_BREACHED = "email.sla_breached"
    WEBHOOK_DELIVER = "webhook.deliver"  # {"messageId"}: the webhook delivery's webhook-id
