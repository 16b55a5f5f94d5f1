"""Header values of outbound email, cleaned: text that users wrote (a product name in a subject, a file
name) never stops an email.

Python's email package refuses a header value holding CR, LF or any character `str.splitlines` breaks on
(VT, FF, FS, GS, RS, NEL, U+2028, U+2029), and lets NUL and the other controls through to the wire, where
mail servers refuse them (RFC 5322 allows none). Either way the email failed every attempt. So each run of
control characters and line or paragraph separators becomes one space; nothing the user wrote can start a
header of its own.
"""

from __future__ import annotations

import re

# Every C0 and C1 control (DEL included), the Unicode line and paragraph separators, and lone surrogates
# (which have no UTF-8 form); spaces too, so that a run of them with spaces around is one space.
_UNSAFE = re.compile(r"[ \x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]+")


def header_value(value: str) -> str:
    """`value` on one line: each run of unsafe characters and spaces as one space, ends trimmed."""
    return _UNSAFE.sub(" ", value).strip()


def body_text(value: str) -> str:
    """A body part's text without NUL (mail servers refuse it; line breaks stay as they are)."""
    return value.replace("\x00", "")
