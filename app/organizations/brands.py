"""A brand as organisations hold it: one organisation per brand, whatever its case or padding."""

from __future__ import annotations

MAX_BRANDS = 200  # per organisation
MAX_BRAND_LENGTH = 100  # the column's length, as sent and as a key


def brand_key(brand: str) -> str:
    """What makes two brands the same (the primary key of organization_brands): trimmed, lower-cased.
    A new claim's product brand is routed by the same key (contract 17.6)."""
    return brand.strip().lower()
