"""Numbers written by a caller (a query parameter, an id in an email address, an HTML character reference):
ASCII digits only, refused by their length before they are converted.

`int()` is quadratic in the number of digits and raises past Python's digit limit (4,300), so a number is
measured first: more digits than its largest value has is never that value (docs/api.md, "Numbers").
"""

from __future__ import annotations


def digits_value(text: str, max_digits: int) -> int | None:
    """The value of `text` when it is 1 to `max_digits` ASCII digits (leading zeros count); else None."""
    if not text or len(text) > max_digits or not (text.isascii() and text.isdigit()):
        return None
    return int(text)


def max_digits_of(largest: int) -> int:
    """How many digits the largest value has: a longer number is out of range without converting it."""
    return len(str(largest))
