from __future__ import annotations

from datetime import date

from sqlalchemy import BigInteger, Date, Integer, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base


class RowCount(Base):
    """Exact row counts for the totals of the unfiltered admin lists, kept by database triggers in the
    writing transaction (migration 0005), cascaded deletes included. A count is the sum of its slots:
    writers of different rows update different slots, so they do not queue on one row."""

    __tablename__ = "row_counts"

    name: Mapped[str] = mapped_column(Text, primary_key=True)
    slot: Mapped[int] = mapped_column(Integer, primary_key=True)
    n: Mapped[int] = mapped_column(BigInteger, default=0)


class ProductExpiryCount(Base):
    """Products per warranty expiry day (migration 0008), kept like the row counts: a warranty status is
    a range of expiry days relative to today, so its total is a sum over that range."""

    __tablename__ = "product_expiry_counts"

    day: Mapped[date] = mapped_column(Date, primary_key=True)
    slot: Mapped[int] = mapped_column(Integer, primary_key=True)
    n: Mapped[int] = mapped_column(BigInteger, default=0)
