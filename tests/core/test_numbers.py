"""Numbers a caller wrote (app.core.numbers): ASCII digits only, measured before they are converted."""

from __future__ import annotations

import pytest

from app.core.numbers import digits_value, max_digits_of


@pytest.mark.parametrize(
    ("text", "value"),
    [("0", 0), ("7", 7), ("0042", 42), ("9223372036854775807", 9223372036854775807)],
)
def test_ascii_digits_within_the_limit_are_their_value(text: str, value: int) -> None:
    assert digits_value(text, 19) == value


@pytest.mark.parametrize(
    "text",
    [
        "",
        "-1",
        "+1",
        " 1",
        "1 ",
        "1_000",
        "1.0",
        "0x10",
        "\u0661\u0662",  # Arabic-Indic digits: str.isdigit() says yes, int() would take them
        "\u00b2",  # a superscript two: isdigit() too, and int() refuses it
        "\uff11\uff12",  # fullwidth digits
    ],
)
def test_anything_but_ascii_digits_is_no_number(text: str) -> None:
    assert digits_value(text, 19) is None


def test_more_digits_than_allowed_is_no_number_leading_zeros_included() -> None:
    assert digits_value("1" * 19, 19) == int("1" * 19)
    assert digits_value("1" * 20, 19) is None
    assert digits_value("0" * 20, 19) is None
    assert digits_value("9" * 100_000, 19) is None  # past Python's digit limit: refused, never converted


def test_the_digits_of_the_largest_value() -> None:
    assert max_digits_of(9) == 1
    assert max_digits_of(10) == 2
    assert max_digits_of(2**63 - 1) == 19
    assert max_digits_of(2**31 - 1) == 10
