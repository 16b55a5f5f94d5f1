"""Reading Authentication-Results (RFC 8601) as receiving servers write them, and as attackers do."""

from __future__ import annotations

import pytest

from app.inbound.authentication import aligned, parse_results


def _summary(value: str, *, arc: bool = False) -> tuple[str, list[tuple[str, str, dict[str, str]]]]:
    authserv_id, results = parse_results(value, arc=arc)
    return authserv_id, [(r.method, r.result, r.properties) for r in results]


def test_a_gmail_header_with_comments_and_versions() -> None:
    value = (
        "mx.google.com;\r\n       dkim=pass header.i=@example.com header.s=20230601 header.b=Ab+c/d;\r\n"
        "       spf=pass (google.com: domain of ann@example.com designates 203.0.113.9 as permitted sender)"
        " smtp.mailfrom=ann@example.com;\r\n"
        "       dmarc=pass (p=NONE sp=NONE dis=NONE) header.from=example.com"
    )

    assert _summary(value) == (
        "mx.google.com",
        [
            ("dkim", "pass", {"header.i": "@example.com", "header.s": "20230601", "header.b": "Ab+c/d"}),
            ("spf", "pass", {"smtp.mailfrom": "ann@example.com"}),
            ("dmarc", "pass", {"header.from": "example.com"}),
        ],
    )


def test_a_version_a_method_version_and_quoted_values() -> None:
    value = 'MX.Example.NET 1; dkim/1=FAIL reason="bad; signature (really)" header.d=Example.com'

    assert _summary(value) == (
        "mx.example.net",
        [("dkim", "fail", {"reason": "bad; signature (really)", "header.d": "Example.com"})],
    )


def test_a_quoted_separator_is_a_word() -> None:
    value = 'mx.example.net; dkim=fail reason=";" header.d="="; spf=none reason="; dmarc=pass"'

    assert _summary(value) == (
        "mx.example.net",
        [("dkim", "fail", {"reason": ";", "header.d": "="}), ("spf", "none", {"reason": "; dmarc=pass"})],
    )


def test_comments_nest_and_may_hide_anything() -> None:
    value = (
        '(a (nested ; dmarc=pass) comment) mx.example.net (x "y) ; spf=fail (c (d) e) smtp.mailfrom=a.example'
    )

    assert _summary(value) == ("mx.example.net", [("spf", "fail", {"smtp.mailfrom": "a.example"})])


def test_an_escaped_parenthesis_does_not_end_a_comment() -> None:
    value = r"mx.example.net; dkim=pass (a \) b; dmarc=pass) header.d=example.com"

    assert _summary(value) == ("mx.example.net", [("dkim", "pass", {"header.d": "example.com"})])


def test_an_arc_header_starts_with_its_instance() -> None:
    value = "i=2; relay.example; dmarc=pass header.from=example.com"

    assert _summary(value, arc=True) == ("relay.example", [("dmarc", "pass", {"header.from": "example.com"})])
    assert _summary(value)[0] == "i"  # read as an Authentication-Results, "i" names no server


@pytest.mark.parametrize(
    "value",
    ["", ";", "mx.example.net; none", "mx.example.net", "=;=;=", "; dmarc=pass", "(unclosed mx; dmarc=pass"],
)
def test_headers_without_results(value: str) -> None:
    assert _summary(value)[1] == []


@pytest.mark.parametrize(
    "value",
    [
        "(" * 200_000 + "mx; dmarc=pass",
        '"' + "\\" * 200_000,
        "mx.example.net" + "; dmarc=pass" * 50_000,
        "a=" * 100_000,
    ],
    ids=["nested-comments", "escapes", "many-results", "many-equals"],
)
def test_hostile_headers_are_read_without_error(value: str) -> None:
    _authserv_id, results = parse_results(value)

    assert len(results) <= 1000  # a bounded read


@pytest.mark.parametrize(
    ("identity", "from_domain", "expected"),
    [
        ("example.com", "example.com", True),
        ("EXAMPLE.com.", "example.com", True),
        ("mail.example.com", "example.com", True),
        ("example.com", "eu.mail.example.com", True),
        ("a.example.com", "b.example.com", False),  # siblings: the public suffix list would be needed
        ("notexample.com", "example.com", False),
        ("example.com.attacker.example", "example.com", False),
        ("com", "example.com", False),
        ("example.com", "com", False),
        ("", "example.com", False),
        ("example.com", "", False),
    ],
)
def test_alignment(identity: str, from_domain: str, expected: bool) -> None:
    assert aligned(identity, from_domain) is expected
