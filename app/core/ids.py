"""Ids as the database keeps them, and as a path or a query gives them: ASCII digits only (with a sign).

Pydantic's lax integer parsing takes " 4", "+4", "1_000" and "4.0" for 4; an id in a URL is the digits
of the id and nothing else, so anything more is the same 400 VALIDATION_FAILED as "abc" (docs/api.md).
"""

from __future__ import annotations

from typing import Any

from pydantic import BeforeValidator

MAX_ID = 2**31 - 1  # INTEGER primary keys on PostgreSQL
MAX_BIGINT_ID = 2**63 - 1  # BIGINT primary keys (events, webhooks)


def _ascii_digits(value: Any) -> Any:
    # A minus sign stays an integer's: each route answers a negative id as it did (404 or 400).
    if isinstance(value, str) and not (value.isascii() and value.removeprefix("-").isdigit()):
        raise ValueError("must be an integer written in ASCII digits")
    return value


# Last in an id parameter's Annotated metadata, `Annotated[int, Path(...), DIGITS_ONLY]`: placed before
# the Path or Query, it makes FastAPI write `ge`/`le` into the document instead of minimum/maximum.
DIGITS_ONLY = BeforeValidator(_ascii_digits)
