"""Every ORM table. Alembic's env imports this module once to see the whole schema."""

from app.models.base import Base
from app.models.cache import CacheInvalidation
from app.models.claim import CLAIM_STATUSES, Claim, Message, MessageRead
from app.models.counts import RowCount
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

# Ids are never given again after a delete: SQLite hands out max(id) + 1 unless the table says
# AUTOINCREMENT (PostgreSQL's sequences never go back). Every table, including ones added later.
for _table in Base.metadata.tables.values():
    _table.dialect_kwargs["sqlite_autoincrement"] = True

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
    "RowCount",
    "User",
]
