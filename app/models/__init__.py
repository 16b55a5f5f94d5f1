"""Every ORM table. Alembic's env imports this module once to see the whole schema."""

from app.models.base import Base
from app.models.cache_invalidations import CacheInvalidation
from app.models.calendar import CalendarFeed
from app.models.claim import Claim, Message, MessageRead
from app.models.claim_deadline import ClaimDeadline
from app.models.event import Event
from app.models.household import ClaimMute, Household, HouseholdInvitation, HouseholdMember
from app.models.identity import OidcLoginCode, UserIdentity
from app.models.inbound import InboundDelivery
from app.models.notification_channels import NotificationTarget, WebPushSubscription
from app.models.organization import Organization, OrganizationBrand, OrganizationMember
from app.models.outbox_items import OutboxItem
from app.models.product import ExpiryAlert, Product, Receipt, WarrantyExtension
from app.models.rating import ClaimRating
from app.models.return_authorization import ReturnAuthorization, RmaCounter
from app.models.row_counts import ProductExpiryCount, RowCount
from app.models.saved_reply import SavedReply
from app.models.throttle_hits import ThrottleHit
from app.models.timeline import ClaimEvent
from app.models.user import DeviceToken, PasswordResetToken, RefreshToken, User
from app.models.webhook import WebhookDelivery, WebhookEndpoint

# Ids are never given again after a delete: SQLite hands out max(id) + 1 unless the table says
# AUTOINCREMENT (PostgreSQL's sequences never go back). Every table, including ones added later.
for _table in Base.metadata.tables.values():
    _table.dialect_kwargs["sqlite_autoincrement"] = True

__all__ = [
    "Base",
    "CacheInvalidation",
    "CalendarFeed",
    "Claim",
    "ClaimDeadline",
    "ClaimEvent",
    "ClaimMute",
    "ClaimRating",
    "DeviceToken",
    "Event",
    "ExpiryAlert",
    "Household",
    "HouseholdInvitation",
    "HouseholdMember",
    "InboundDelivery",
    "Message",
    "MessageRead",
    "NotificationTarget",
    "OidcLoginCode",
    "Organization",
    "OrganizationBrand",
    "OrganizationMember",
    "OutboxItem",
    "PasswordResetToken",
    "Product",
    "ProductExpiryCount",
    "Receipt",
    "RefreshToken",
    "ReturnAuthorization",
    "RmaCounter",
    "RowCount",
    "SavedReply",
    "ThrottleHit",
    "User",
    "UserIdentity",
    "WarrantyExtension",
    "WebPushSubscription",
    "WebhookDelivery",
    "WebhookEndpoint",
]
