"""The addresses of a From, To or Cc field (app/inbound/address_lists.py), read in one pass: ordinary fields
as the standard library reads them, and fields built to break the parser (comments nested thousands deep,
millions of special characters) read up to their bound, answered as the ordinary case they imitate (an
unreadable sender, no claim address), never with a 500. Their cost is counted, not timed."""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.utils import getaddresses

import httpx
import pytest
from fastapi import FastAPI

from app.inbound import address_lists
from app.inbound.address_lists import MAX_FIELD
from app.inbound.formats import parse_payload
from tests.factories.inbound import (
    FORMATS,
    SECRETS,
    claim_address,
    email_in,
    generic,
    post_provider,
    post_standard,
    provider_event,
)
from tests.inbound.support import CUSTOMER, bodies_of, new_claim

pytestmark = pytest.mark.settings(**SECRETS)

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


def test_each_mailbox_is_its_angle_address_else_its_text_without_names_comments_or_groups() -> None:
    field = 'Team: "Doe, Ann" <ann@example.com>, bob @ example.com (Bob);, <@relay.example:carl@example.com>'

    assert address_lists.addresses([field, "dora@example.com", ""]) == [
        "ann@example.com",
        "bob@example.com",
        "",  # the group's end: an empty item, as written
        "carl@example.com",
        "dora@example.com",
        "",
    ]


def test_the_items_of_a_field_share_one_bound() -> None:
    first = "a" * (MAX_FIELD - 10) + "@example.com"

    assert address_lists.addresses([first, "b@example.com"]) == [first[:MAX_FIELD]]
