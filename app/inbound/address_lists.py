"""The addresses of a From, To or Cc field (an RFC 5322 address list), read in one pass.

Comments nest ("(a (b) c)") and quoted strings escape, and the standard library's `getaddresses` recurses
into each level: a From of 3,000 "(" raised RecursionError. Here a scan jumps from one special character
to the next and counts comment depth, so a field costs time linear in its length and no stack; and only
its first `MAX_FIELD` characters are read, so no field holds the event loop, whatever the body's size.

Display names, comments and group names are dropped; the address of a mailbox is what its `<...>` holds
(a route `@relay:` left out), else its text, without whitespace. An `@` in an unquoted display name is
not an address: `ann@example.com <eve@example.net>` is Eve's mailbox, as mail programs answer it.
"""

from __future__ import annotations

import re

# Characters of one field read, all its items together: a To of 400 recipients fits; a longer field is
# no mail program's, and what lies past this is not read.
MAX_FIELD = 16 * 1024

_IN_TEXT = re.compile(r'[()"\\<>,;:]')
_IN_COMMENT = re.compile(r"[()\\]")
_IN_QUOTES = re.compile(r'["\\]')


def addresses(values: list[str]) -> list[str]:
    """The address of each mailbox in the field's items, in order, as written (empty ones included)."""
    found: list[str] = []
    budget = MAX_FIELD
    for value in values:
        if budget <= 0:
            break
        found += _mailboxes(value[:budget])
        budget -= len(value) + 1
    return found


def _address(words: list[str], angle: list[str] | None) -> str:
    address = "".join("".join(words if angle is None else angle).split())
    if address.startswith("@") and ":" in address:  # an obsolete source route: <@relay:ann@example.com>
        address = address.split(":", 1)[1]
    return address


def _mailboxes(field: str) -> list[str]:
    found: list[str] = []
    words: list[str] = []  # the mailbox's text outside <...>, comments left out
    angle: list[str] | None = None  # inside <...>, once one opened
    in_angle = quoted = False
    depth = 0  # comment nesting
    position, length = 0, len(field)
    while position < length:
        match = (_IN_COMMENT if depth else _IN_QUOTES if quoted else _IN_TEXT).search(field, position)
        end = match.start() if match else length
        target = angle if in_angle and angle is not None else words
        if not depth:
            target.append(field[position:end])
        if match is None:
            break
        special = match.group()
        position = end + 1
        if special == "\\":  # the next character is itself, whatever it is
            if not depth:
                target.append(field[end : end + 2])
            position = end + 2
        elif depth:
            depth += 1 if special == "(" else -1 if special == ")" else 0
            if not depth:
                target.append(" ")
        elif special == '"':
            target.append('"')
            quoted = not quoted
        elif special == "(":
            depth = 1
        elif special == "<":
            if angle is not None and not in_angle:  # "<a@b> <c@d>": a second mailbox
                found.append(_address(words, angle))
                words = []
            angle, in_angle = angle if in_angle else [], True
        elif special == ">":
            in_angle = False
        elif special == ":" and in_angle:
            target.append(":")
        elif special == ":":  # a group's name: "Friends: a@b, c@d;"
            words, angle = [], None
        elif special in ",;":  # the end of a mailbox (a stray ")" is nothing)
            found.append(_address(words, angle))
            words, angle, in_angle = [], None, False
    found.append(_address(words, angle))
    return found
