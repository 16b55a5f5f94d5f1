"""Mail built to break the parsers: nested comments in addresses, numbers longer than Python converts, in
the From and To fields, in a claim address and in HTML character references. Each is answered as the
ordinary case it imitates (an unreadable sender, an unknown claim, a character that cannot be), never with
a 500. Their cost is counted, not timed: a field is read in one pass up to its bound, and a number longer
than its largest value is never converted."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from email.utils import getaddresses

import httpx
import pytest
from fastapi import FastAPI

from app.core.ids import MAX_ID
from app.inbound import address_lists
from app.inbound.address_lists import MAX_FIELD
from app.inbound.formats import claim_id_from, parse_payload
from app.inbound.html_text import html_to_text
from app.inbound.reply import extract_reply
from tests.factories.inbound import (
    FORMATS,
    SECRETS,
    claim_address,
    email_in,
    generic,
    post_provider,
    post_standard,
    postmark,
    provider_event,
)
from tests.inbound.support import CUSTOMER, bodies_of, new_claim

pytestmark = pytest.mark.settings(**SECRETS)

LONG = "1" * 4301  # one digit past Python's integer-string limit: int() raises on it
NESTED = 300_000  # "(" deep: a recursive parser raises RecursionError; a quadratic one would not finish


@dataclass
class Scan:
    read: int = 0  # characters of address fields handed to the scan
    steps: int = 0  # searches for the next special character


@pytest.fixture
def scan(monkeypatch: pytest.MonkeyPatch) -> Scan:
    """The address scan's work, counted: what it is handed of each field, and how many steps it takes."""
    counted = Scan()
    mailboxes = address_lists._mailboxes

    def reading(field: str) -> list[str]:
        counted.read += len(field)
        return mailboxes(field)

    class Stepping:
        def __init__(self, pattern: re.Pattern[str]) -> None:
            self.pattern = pattern

        def search(self, text: str, position: int) -> re.Match[str] | None:
            counted.steps += 1
            return self.pattern.search(text, position)

    monkeypatch.setattr(address_lists, "_mailboxes", reading)
    for name in ("_IN_TEXT", "_IN_COMMENT", "_IN_QUOTES"):
        monkeypatch.setattr(address_lists, name, Stepping(getattr(address_lists, name)))
    return counted


# --- addresses: comments nest (RFC 5322), so a scan counts their depth instead of recursing


@pytest.mark.parametrize("depth", [3_000, NESTED])  # 3,000: the standard library's RecursionError
@pytest.mark.parametrize(
    ("shape", "sender"),
    [
        ("{}", ""),
        ("Ann {} <ann@example.com>", ""),  # the comment never closes: the address is inside it
        ("ann@example.com {}", "ann@example.com"),
        ('"{}" <ann@example.com>', "ann@example.com"),
    ],
    ids=["opened", "in-name", "after-address", "in-quotes"],
)
def test_a_from_of_nested_comments_is_read_in_one_bounded_pass(
    scan: Scan, depth: int, shape: str, sender: str
) -> None:
    payload = generic(shape.format("(" * depth), claim_address(1))
    if payload["from"].index("(") + depth > MAX_FIELD:
        sender = sender if payload["from"].startswith(sender) else ""  # past the characters read

    assert parse_payload(payload).sender == sender
    assert scan.read <= min(len(payload["from"]), MAX_FIELD) + len(claim_address(1))  # From, then To
    assert scan.steps <= scan.read  # one pass: each step moves past a character


def test_closed_nested_comments_are_skipped_whatever_their_depth() -> None:
    nested = "(" * 5_000 + ")" * 5_000
    email = parse_payload(generic(f"Ann {nested} <ann@example.com> {nested}", f"{nested}{claim_address(3)}"))

    assert (email.sender, email.recipients) == ("ann@example.com", [claim_address(3)])


@pytest.mark.parametrize("fmt", FORMATS)
def test_recipients_of_nested_comments_are_read_in_one_bounded_pass(scan: Scan, fmt: str) -> None:
    payload = email_in(fmt, CUSTOMER, "(" * NESTED + claim_address(3))

    assert parse_payload(payload).recipients == []
    assert scan.read <= len(CUSTOMER) + MAX_FIELD
    assert scan.steps <= scan.read


@pytest.mark.parametrize("special", [",", ":", "<>", "\\", "("])
def test_an_address_field_of_millions_of_special_characters_is_read_only_up_to_its_bound(
    scan: Scan, special: str
) -> None:
    # Linear is not enough on the event loop: an address field is read up to a bound, whatever its size.
    field = special * 2_000_000
    email = parse_payload(provider_event(field, [field] * 4))

    assert (email.sender, email.recipients) == ("", [])
    assert scan.read <= 2 * MAX_FIELD  # of the From's and the To's 10 million characters
    assert scan.steps <= scan.read


def test_an_address_field_is_read_up_to_its_bound() -> None:
    padding = "Bob <bob@example.com>, " * 200  # 4,600 characters: as long as any real To
    to = [padding + claim_address(3), "x" * 20_000, "c@example.com"]

    email = parse_payload(provider_event(CUSTOMER, to))

    assert email.recipients[-1] == claim_address(3) and len(email.recipients) == 201


ADDRESSES = [
    "ann@example.com",
    "Ann@Example.COM",
    "Ann Example <ann@example.com>",
    '"Example, Ann" <ann@example.com>',
    '"Ann \\"the\\" Example" <ann@example.com>',
    "ann@example.com (Ann Example)",
    "Ann (home) <ann@example.com>",
    "Ann <ann@example.com> (home)",
    "<ann@example.com>",
    "  Ann   <  ann@example.com  >  ",
    "Ann <ann@example.com>, Bob <bob@example.com>",
    '"Doe, Ann" <ann@example.com>, bob@example.com (Bob, B.)',
    "Friends: ann@example.com, Bob <bob@example.com>;, carl@example.com",
    "undisclosed-recipients:;",
    "Ann <ann(at home)@example.com>",
    "ann @ example.com",
    "Ann",
    "",
    "Ann <>",
    "claim+7@warranty.local",
    "=?utf-8?q?Ann_=C3=A9?= <ann@example.com>",
    "Ann <ann@example.com",
    "Ann (c\\) still) <ann@example.com>",
    "<@relay.example:ann@example.com>",
    "mailto:ann@example.com",
    "Ann <ann@example.com> <bob@example.com>",
    "ann@example.com,,bob@example.com",
    "Ann <ann@example.com>;bob@example.com",
    "Ann) <ann@example.com>",
]


@pytest.mark.parametrize("value", ADDRESSES)
def test_ordinary_addresses_read_as_the_standard_library_reads_them(value: str) -> None:
    standard = [address.lower() for _name, address in getaddresses([value]) if "@" in address]

    assert parse_payload(generic(value, value)).recipients == standard


def test_an_address_in_an_unquoted_display_name_is_not_the_sender() -> None:
    # What mail programs (and DMARC) take for the sender is the <...> address, not the name's text.
    email = parse_payload(generic("ann@example.com <eve@example.net>", claim_address(1)))

    assert email.sender == "eve@example.net"


async def test_a_from_of_nested_comments_is_an_unreadable_sender_over_http(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    claim = await new_claim(app)
    unreadable = await post_standard(client, generic("nobody", claim_address(claim.id), text="First"))
    assert unreadable.status_code < 500, unreadable.text

    for depth in (3_000, NESTED):
        response = await post_standard(client, generic("(" * depth, claim_address(claim.id), text=f"{depth}"))
        assert (response.status_code, response.json()) == (unreadable.status_code, unreadable.json())
    assert await bodies_of(app, claim.id) == []


async def test_a_recipient_of_nested_comments_is_no_claim_address_over_http(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    claim = await new_claim(app)
    unaddressed = await post_provider(client, generic(CUSTOMER, "someone@example.com", text="First"))
    assert unaddressed.status_code < 500, unaddressed.text

    response = await post_provider(client, generic(CUSTOMER, "(" * 3_000 + claim_address(claim.id)))

    assert (response.status_code, response.json()) == (unaddressed.status_code, unaddressed.json())
    assert await bodies_of(app, claim.id) == []


# --- claim ids: refused by their length, never converted past the largest id


def test_a_claim_id_longer_than_the_largest_id_is_out_of_range_without_converting_it() -> None:
    address = f"claim+{LONG}@warranty.local"

    found = claim_id_from([address], "warranty.local")

    assert found is not None and found > MAX_ID
    assert claim_id_from([f"claim+{MAX_ID}@warranty.local"], "warranty.local") == MAX_ID
    assert claim_id_from(["claim+0000000042@warranty.local"], "warranty.local") == 42
    assert claim_id_from([], "warranty.local", mailbox_hash=LONG) == found


def test_a_claim_id_in_other_digits_than_ascii_is_no_claim_address() -> None:
    assert claim_id_from(["claim+\u0664\u0662@warranty.local"], "warranty.local") is None  # Arabic-Indic 42
    assert claim_id_from([], "warranty.local", mailbox_hash="\u0664\u0662") is None


@pytest.mark.parametrize("digits", [LONG, "9" * 20])
@pytest.mark.parametrize("where", ["recipient", "mailbox-hash"])
async def test_a_claim_id_of_too_many_digits_is_an_unknown_claim_over_http(
    app: FastAPI, client: httpx.AsyncClient, digits: str, where: str
) -> None:
    claim = await new_claim(app)
    if where == "recipient":
        payload = postmark(CUSTOMER, f"claim+{digits}@warranty.local")
    else:
        payload = postmark(CUSTOMER, "inbound@example.com") | {"MailboxHash": digits}

    response = await post_provider(client, payload, provider="postmark")

    assert response.status_code == 404, response.text
    assert response.json()["code"] == "NOT_FOUND"
    assert await bodies_of(app, claim.id) == []


# --- HTML character references: past U+10FFFF is U+FFFD (the HTML standard), however many digits


@pytest.mark.parametrize(
    ("reference", "character"),
    [
        (f"&#{LONG};", "\ufffd"),
        (f"&#{LONG}", "\ufffd"),
        (f"&#x{'f' * 5000};", "\ufffd"),
        (f"&#X{'0' * 5000}41;", "A"),  # leading zeros are no part of the value
        (f"&#{'0' * 5000}65;", "A"),
        ("&#1114112;", "\ufffd"),
        ("&#x110000;", "\ufffd"),
        ("&#1114109;", "\U0010fffd"),
        ("&#x1F600;", "\U0001f600"),
        ("&#0;", "\ufffd"),
        ("&#xD800;", "\ufffd"),
        ("&#38;amp;", "&amp;"),  # decoded once
        ("&amp;&lt;&eacute;&notit;", "&<é¬it;"),
    ],
)
def test_character_references_decode_as_the_html_standard_says(reference: str, character: str) -> None:
    assert html_to_text(f"<p>x {reference} y</p>") == f"x {character} y"


def test_long_character_references_in_attributes_and_bodies_are_never_converted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # LONG would raise in int(); 3,000 hexadecimal digits would convert (base 16 has no limit), so what
    # reaches the converter is counted: references no longer than the largest one, "&#1114111;".
    converted: list[str] = []
    unescape = html.unescape

    def counting(text: str) -> str:
        converted.append(text)
        return unescape(text)

    monkeypatch.setattr(html, "unescape", counting)
    reply = f'<div class="&#{LONG};" id="&#x{"f" * 3000}">' + f"&#{LONG};" * 200 + "</div>"

    assert extract_reply("", reply) == "\ufffd" * 200
    assert max(map(len, converted), default=0) <= len("&#1114111;")


async def test_an_html_reply_with_a_long_character_reference_is_posted_over_http(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    claim = await new_claim(app)
    html = f"<div>The part is here &#{LONG}; thanks</div>"

    response = await post_standard(client, generic(CUSTOMER, claim_address(claim.id), text="", html=html))

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "processed"
    assert await bodies_of(app, claim.id) == ["The part is here \ufffd thanks"]
