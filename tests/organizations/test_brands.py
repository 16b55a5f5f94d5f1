"""The key a brand is compared by: trimmed and lower-cased, so one brand is one organisation's whatever its
case or padding."""

from __future__ import annotations

import pytest

from app.organizations.brands import brand_key


@pytest.mark.parametrize(
    ("brand", "key"),
    [
        ("Gaggia", "gaggia"),
        ("  GAGGIA\t", "gaggia"),
        ("De'Longhi", "de'longhi"),
        ("Caffè", "caffè"),
        ("ÄÖÜ", "äöü"),
    ],
)
def test_a_brand_is_keyed_trimmed_and_lower_cased(brand: str, key: str) -> None:
    assert brand_key(brand) == key


def test_inner_spaces_are_part_of_the_brand() -> None:
    assert brand_key("Black  Decker") != brand_key("Black Decker")
