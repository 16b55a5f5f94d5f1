from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import Date, ForeignKey, Index, Integer, Numeric, String, func, text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.types import UtcDateTime
from app.models.base import Base, CreatedAt, Timestamps


class Product(Timestamps, Base):
    __tablename__ = "products"
    __table_args__ = (
        Index("ix_products_owner_created", "owner_id", "created_at"),
        # A household's shared products (a member's list, the access checks, the sweep of open streams).
        Index(
            "ix_products_household_created_id",
            "household_id",
            "created_at",
            "id",
            sqlite_where=text("household_id IS NOT NULL"),
            postgresql_where=text("household_id IS NOT NULL"),
        ),
        # The admin list: newest first (the default) and by name (keyset: the sort key, then the id).
        Index("ix_products_created_id", "created_at", "id"),
        Index("ix_products_name_id", func.lower(text("name")), "id"),
        # The brand and category filters (equal, any case), newest first, and their exact totals.
        Index("ix_products_brand_created_id", func.lower(text("brand")), "created_at", "id"),
        Index("ix_products_category_created_id", func.lower(text("category")), "created_at", "id"),
        # The `warrantyStatus=void` filter, newest first: few rows, so a partial index.
        Index(
            "ix_products_voided_created_id",
            "created_at",
            "id",
            sqlite_where=text("warranty_voided_at IS NOT NULL"),
            postgresql_where=text("warranty_voided_at IS NOT NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    # The household the owner shares it with (contract 17.3): its members see it, owners and members edit it.
    household_id: Mapped[int | None] = mapped_column(ForeignKey("households.id", ondelete="SET NULL"))
    name: Mapped[str] = mapped_column(String(255))
    brand: Mapped[str] = mapped_column(String(100))
    category: Mapped[str] = mapped_column(String(100))
    store: Mapped[str | None] = mapped_column(String(100))
    purchase_date: Mapped[date] = mapped_column(Date)
    # The warranty's own end: purchase_date + months, or a day given directly (exactly one of the two).
    warranty_period_months: Mapped[int | None] = mapped_column(Integer)
    warranty_ends_on: Mapped[date | None] = mapped_column(Date)
    # The effective expiry: the later of the own end and every warranty extension's end. Kept in step by
    # every write that moves one of them (app.products.expiry), so lists filter and sort on it and expiry
    # alerts follow it.
    warranty_expires_on: Mapped[date] = mapped_column(Date, index=True)
    warranty_voided_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    warranty_void_reason: Mapped[str | None] = mapped_column(String(500))
    price: Mapped[Decimal | None] = mapped_column(Numeric(12, 2))
    serial_number: Mapped[str | None] = mapped_column(String(100))


class Receipt(CreatedAt, Base):
    __tablename__ = "receipts"

    id: Mapped[int] = mapped_column(primary_key=True)
    product_id: Mapped[int] = mapped_column(ForeignKey("products.id", ondelete="CASCADE"), index=True)
    file_name: Mapped[str] = mapped_column(String(255))
    file_type: Mapped[str] = mapped_column(String(16))
    mime_type: Mapped[str] = mapped_column(String(100))
    size: Mapped[int] = mapped_column(Integer)
    storage_key: Mapped[str] = mapped_column(String(255))


class ExpiryAlert(Base):
    """An expiry alert already recorded: (product, threshold, expiry date) is alerted exactly once."""

    __tablename__ = "expiry_alerts"

    product_id: Mapped[int] = mapped_column(ForeignKey("products.id", ondelete="CASCADE"), primary_key=True)
    threshold_days: Mapped[int] = mapped_column(Integer, primary_key=True)
    expires_on: Mapped[date] = mapped_column(Date, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class WarrantyExtension(CreatedAt, Base):
    """The warranty a resolved claim leaves on its product (a repair's or a replacement's): at most one per
    claim, removed when the claim is reopened."""

    __tablename__ = "warranty_extensions"
    __table_args__ = (Index("ix_warranty_extensions_product_ends", "product_id", "ends_on"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    product_id: Mapped[int] = mapped_column(ForeignKey("products.id", ondelete="CASCADE"))
    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"), unique=True)
    months: Mapped[int] = mapped_column(Integer)
    starts_on: Mapped[date] = mapped_column(Date)
    ends_on: Mapped[date] = mapped_column(Date)
