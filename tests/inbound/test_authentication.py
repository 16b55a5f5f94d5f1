"""Authentication-Results (RFC 8601) and what they prove (app/inbound/authentication.py): each header read as
receiving servers write it and as attackers do; only the provider's own (a listed authserv-id) trusted,
a sealer's ARC results only when the provider verified the seal; and a From domain proven by DMARC, or
by an aligned SPF or DKIM pass where the domain publishes no DMARC."""

from __future__ import annotations

import pytest

from app.inbound.authentication import Result, aligned, parse_results, proves, trusted_results


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


LISTED = ["MX.Provider.example ", "arc.relay.example"]
SEALED = "i=1; arc.relay.example; dmarc=pass header.from=example.com"


def test_only_a_listed_providers_own_header_is_trusted() -> None:
    own = {"authentication-results": "mx.provider.example; dkim=pass header.d=example.com"}
    other = {"authentication-results": "mx.other.example; dkim=pass header.d=example.com"}

    assert trusted_results(own, LISTED).direct == [Result("dkim", "pass", {"header.d": "example.com"})]
    assert trusted_results(other, LISTED).direct == []
    assert trusted_results({}, LISTED).direct == []
    assert trusted_results(own, []).direct == []


@pytest.mark.parametrize(
    ("arc", "sealer", "trusted"),
    [("pass", "arc.relay.example", True), ("fail", "arc.relay.example", False), ("pass", "x.example", False)],
    ids=["verified seal of a listed sealer", "seal not verified", "sealer not listed"],
)
def test_a_sealers_results_count_when_the_provider_verified_the_seal(
    arc: str, sealer: str, trusted: bool
) -> None:
    headers = {
        "authentication-results": f"mx.provider.example; arc={arc}; dmarc=fail",
        "arc-authentication-results": SEALED.replace("arc.relay.example", sealer),
    }

    sealed = trusted_results(headers, LISTED).sealed

    assert sealed == ([Result("dmarc", "pass", {"header.from": "example.com"})] if trusted else [])


def _results(value: str) -> list[Result]:
    return parse_results(f"mx.provider.example; {value}")[1]


@pytest.mark.parametrize(
    ("results", "from_domain", "proven"),
    [
        ("dmarc=pass header.from=example.com", "ann@example.com", True),
        ("dmarc=pass", "EXAMPLE.com.", True),  # judged for the From read
        ("dmarc=pass header.from=other.example", "example.com", False),
        ("dmarc=pass; dmarc=fail", "example.com", False),  # two verdicts: not a pass
        ("dmarc=none; spf=pass smtp.mailfrom=bounce@mail.example.com", "example.com", True),
        ("dkim=pass header.i=@example.com", "example.com", True),  # no DMARC result at all
        ("dmarc=none; dkim=pass header.d=attacker.example", "example.com", False),
        ("dmarc=temperror; dkim=pass header.d=example.com", "example.com", False),
        ("spf=pass", "example.com", False),  # passed for no named domain
        ("dmarc=pass", "", False),
    ],
)
def test_what_proves_the_from_domain(results: str, from_domain: str, proven: bool) -> None:
    assert proves(_results(results), from_domain) is proven
