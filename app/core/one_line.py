"""Text a user wrote, put on one line where a format allows no control character: an email header
(RFC 5322), an iCalendar text value (RFC 5545).

Each run of control characters (C0, DEL and C1, NEL included), Unicode line and paragraph separators and
spaces becomes one space, and the ends are trimmed: nothing the user wrote can break a line or start a
property of its own. Lone surrogates (they have no UTF-8 form) go the same way.
"""

from __future__ import annotations

import re

# Spaces too, so that a run of unsafe characters with spaces around it is one space.
_UNSAFE = re.compile(r"[ \x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]+")


def one_line(value: str) -> str:
    """`value` on one line: each run of unsafe characters and spaces as one space, ends trimmed."""
    return _UNSAFE.sub(" ", value).strip()
