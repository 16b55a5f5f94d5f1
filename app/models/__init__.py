"""Every ORM table. Alembic's env imports this module once to see the whole schema."""

from app.models.base import Base
from app.models.cache import CacheInvalidation
from app.models.claim import CLAIM_STATUSES, Claim, Message, MessageRead
from app.models.event import Event
from app.models.inbound import InboundDelivery
from app.models.outbox import OutboxItem
from app.models.product import ExpiryAlert, Product, Receipt
from app.models.user import (
    ROLE_ADMIN,
    ROLE_SUPPLIER,
    ROLE_USER,
    ROLES,
    DeviceToken,
    LoginFailure,
    PasswordResetToken,
    RefreshToken,
    User,
)

__all__ = [
    "CLAIM_STATUSES",
    "ROLES",
    "ROLE_ADMIN",
    "ROLE_SUPPLIER",
    "ROLE_USER",
    "Base",
    "CacheInvalidation",
    "Claim",
    "DeviceToken",
    "Event",
    "ExpiryAlert",
    "InboundDelivery",
    "LoginFailure",
    "Message",
    "MessageRead",
    "OutboxItem",
    "PasswordResetToken",
    "Product",
    "Receipt",
    "RefreshToken",
    "User",
]
