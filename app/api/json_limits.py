"""How deeply a JSON text nests and how many values it holds, found without parsing it.

Depth (docs/api.md §2: deeper than 64 is refused): Python's parser recurses once per level, and 15 MB of
`[` is cheap to send. Width: 15 MB of `{"k1":0,"k2":0,...}` parses into a million keys, and validating
them against a model (a million "unknown field" errors, each rendered) held the event loop for 8 s;
15 MB of `[{},{},...]` for 2 s. No request of the API carries more than a few hundred values (an inbound
provider's headers and attachments included), so more than `MAX_JSON_VALUES` is refused too.

Both checks work on the raw bytes in C-speed passes (no Python step per byte): strings are cut out, and
what is left is counted. Text that does not balance is no JSON either: the parser would refuse it too,
so both answer MALFORMED_JSON.
"""

from __future__ import annotations

import re
from itertools import accumulate
from operator import sub

MAX_JSON_DEPTH = 64  # docs/api.md §2
MAX_JSON_VALUES = 10_000  # separators outside strings: about one per value beyond the first of each container

# A JSON string, unrolled ("[^"\\]*(\\.[^"\\]*)*") so that it never backtracks more than once per byte.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(byte for byte in range(256) if byte not in b"[]{}")
_AS_SQUARE = bytes.maketrans(b"{}", b"[]")  # nesting does not tell `{` from `[`
_OPENING_RUNS = re.compile(rb"\[+")
_CLOSING_RUNS = re.compile(rb"\]+")


def nested_deeper_than(body: bytes, limit: int) -> bool:
    """True when the JSON text nests containers more than `limit` deep. Brackets that cannot balance may
    answer either way: that text is no JSON, and the parser refuses it with the same code."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False  # too few brackets to nest that deep: most bodies end here
    brackets = _STRING.sub(b"", body).translate(_AS_SQUARE, _NOT_BRACKETS)
    if b"[" * (limit + 1) in brackets:
        return True  # `[[[[...`
    if not brackets.startswith(b"["):
        return bool(brackets)  # a closing bracket first: not JSON
    # The runs alternate, opening first: the depth after the k-th opening run is the sum of the first k
    # opening runs less the first k-1 closing runs.
    opened = accumulate(map(len, _OPENING_RUNS.findall(brackets)))
    closed = accumulate(map(len, _CLOSING_RUNS.findall(brackets)), initial=0)
    return max(map(sub, opened, closed)) > limit


def holds_more_values_than(body: bytes, limit: int) -> bool:
    """True when the JSON text has more than `limit` commas outside its strings (a value follows each)."""
    if body.count(b",") <= limit:
        return False  # too few commas even counting those in strings: most bodies end here
    return _STRING.sub(b"", body).count(b",") > limit
