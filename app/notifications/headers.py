"""Header values of outbound email, cleaned: text that users wrote (a product name in a subject, a file
name) never stops an email.

Python's email package refuses a header value holding CR, LF or any character `str.splitlines` breaks on
(VT, FF, FS, GS, RS, NEL, U+2028, U+2029), and lets NUL and the other controls through to the wire, where
mail servers refuse them (RFC 5322 allows none). Either way the email failed every attempt. So each run of
control characters and line or paragraph separators becomes one space; nothing the user wrote can start a
header of its own.
"""

from __future__ import annotations

from app.core.one_line import one_line


def header_value(value: str) -> str:
    """`value` on one line: each run of unsafe characters and spaces as one space, ends trimmed."""
    return one_line(value)


def body_text(value: str) -> str:
    """A body part's text without NUL (mail servers refuse it; line breaks stay as they are)."""
    return value.replace("\x00", "")
