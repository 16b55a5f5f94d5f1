"""A token in the query string never reaches a log (app.observability.query_token): every `authorization`
parameter's value is lifted out of the server's scope, the first kept for the hub to read."""

from __future__ import annotations

from typing import Any

import pytest

from app.observability.query_token import lift_query_token, query_token


def _lifted(query: bytes) -> dict[str, Any]:
    scope: dict[str, Any] = {"type": "http", "query_string": query}
    lift_query_token(scope)
    return scope


def test_the_token_leaves_the_query_string_and_is_kept_decoded() -> None:
    scope = _lifted(b"topic=x&authorization=ey%2BJ.a+b&lastEventID=7")
    assert scope["query_string"] == b"topic=x&authorization=REDACTED&lastEventID=7"
    assert query_token(scope) == "ey+J.a b"  # as Starlette would decode it


@pytest.mark.parametrize(
    ("query", "kept", "redacted"),
    [
        (b"Authorization=secret", None, b"Authorization=REDACTED"),  # another case: hidden, not used
        (b"%61uthorization=secret", "secret", b"%61uthorization=REDACTED"),  # the name, percent-encoded
        (
            b"authorization=first&authorization=second",
            "first",
            b"authorization=REDACTED&authorization=REDACTED",
        ),
        (
            b"AUTHORIZATION=upper&authorization=lower",
            "lower",
            b"AUTHORIZATION=REDACTED&authorization=REDACTED",
        ),
    ],
)
def test_every_spelling_is_hidden_and_only_the_exact_name_is_read(
    query: bytes, kept: str | None, redacted: bytes
) -> None:
    scope = _lifted(query)
    assert scope["query_string"] == redacted
    assert query_token(scope) == kept


@pytest.mark.parametrize(
    ("query", "kept"),
    [
        (b"", None),
        (b"topic=x", None),
        (b"topic=%2Fapi", None),
        (b"authorization", ""),
        (b"authorization=", ""),
    ],
)
def test_a_query_without_a_token_value_is_left_as_it_is(query: bytes, kept: str | None) -> None:
    scope = _lifted(query)
    assert scope["query_string"] == query
    assert query_token(scope) == kept


def test_a_scope_without_a_query_has_no_token() -> None:
    scope: dict[str, Any] = {"type": "http"}
    lift_query_token(scope)
    assert query_token(scope) is None
