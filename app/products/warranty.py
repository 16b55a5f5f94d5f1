"""Warranty arithmetic: expiry by calendar months, a product's own end, and the status on a given day."""

from __future__ import annotations

import calendar
from datetime import date
from typing import Literal

WarrantyStatus = Literal["active", "expiring_soon", "expired", "void"]
MAX_MONTHS = 600


def expiry_date(purchase_date: date, months: int) -> date:
    """purchase_date + months calendar months, in one step; a day the target month lacks becomes its last
    day (2024-01-31 + 1 month = 2024-02-29)."""
    month_index = purchase_date.month - 1 + months
    year, month = purchase_date.year + month_index // 12, month_index % 12 + 1
    day = min(purchase_date.day, calendar.monthrange(year, month)[1])
    return date(year, month, day)


def own_end(purchase_date: date, months: int | None, ends_on: date | None) -> date:
    """The end of the product's own warranty: the day given directly, else the purchase day plus months."""
    if ends_on is not None:
        return ends_on
    assert months is not None  # one of the two is always set (app.products.service)
    return expiry_date(purchase_date, months)


def warranty_status(expires_on: date, today: date, expiring_soon_days: int) -> WarrantyStatus:
    """Expired after the expiry day (that day is still covered); expiring soon within the window."""
    days_left = (expires_on - today).days
    if days_left < 0:
        return "expired"
    if days_left <= expiring_soon_days:
        return "expiring_soon"
    return "active"
