"""Mail built to break the parsers: nested comments in addresses, numbers longer than Python converts, in
the From and To fields, in a claim address and in HTML character references. Each is answered as the
ordinary case it imitates (an unreadable sender, an unknown claim, a character that cannot be), in time
linear in its size, never with a 500."""

from __future__ import annotations

import time
from email.utils import getaddresses

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.core.ids import MAX_ID
from app.inbound.addresses import MAX_FIELD
from app.inbound.formats import claim_id_from, parse_payload
from app.inbound.html_text import html_to_text
from app.inbound.reply import extract_reply
from app.models import Claim, Message
from tests.factories.claims import create_claim
from tests.factories.inbound import (
    RAW_INBOUND_SECRET,
    WEBHOOK_SECRET,
    claim_address,
    generic,
    post_provider,
    post_standard,
    postmark,
    provider_event,
)
from tests.factories.products import create_product
from tests.factories.users import create_supplier, create_user

pytestmark = pytest.mark.settings(webhook_secret=WEBHOOK_SECRET, inbound_secret=RAW_INBOUND_SECRET)

CUSTOMER = "ann@example.com"
LONG = "1" * 4301  # one digit past Python's integer-string limit
FAST = 1.0  # seconds: each input here is parsed in milliseconds when the parse is linear


async def _claim(app: FastAPI) -> Claim:
    customer = await create_user(app, email=CUSTOMER, name="Ann")
    supplier = await create_supplier(app, email="sam@supplier.example", name="Sam")
    return await create_claim(app, await create_product(app, customer), supplier=supplier)


async def _bodies(app: FastAPI, claim_id: int) -> list[str]:
    async with app.state.sessionmaker() as session:
        return list((await session.scalars(select(Message.body).where(Message.claim_id == claim_id))).all())


def _timed(work: object) -> float:
    assert callable(work)
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


# --- addresses: comments nest (RFC 5322), so a scan counts their depth instead of recursing


@pytest.mark.parametrize("depth", [3_000, 300_000])
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
def test_a_from_of_nested_comments_is_read_in_linear_time(depth: int, shape: str, sender: str) -> None:
    payload = generic(shape.format("(" * depth), claim_address(1))
    if payload["from"].index("(") + depth > MAX_FIELD:
        sender = sender if payload["from"].startswith(sender) else ""  # past the characters read

    took = _timed(lambda: parse_payload(payload))

    assert took < FAST
    assert parse_payload(payload).sender == sender


def test_closed_nested_comments_are_skipped_whatever_their_depth() -> None:
    nested = "(" * 5_000 + ")" * 5_000
    email = parse_payload(generic(f"Ann {nested} <ann@example.com> {nested}", f"{nested}{claim_address(3)}"))

    assert (email.sender, email.recipients) == ("ann@example.com", [claim_address(3)])


@pytest.mark.parametrize("fmt", ["provider", "postmark", "generic"])
def test_recipients_of_nested_comments_are_read_in_linear_time(fmt: str) -> None:
    to = "(" * 300_000 + claim_address(3)
    payload = {
        "provider": lambda: provider_event(CUSTOMER, [to]),
        "postmark": lambda: postmark(CUSTOMER, to),
        "generic": lambda: generic(CUSTOMER, to),
    }[fmt]()

    took = _timed(lambda: parse_payload(payload))

    assert took < FAST
    assert parse_payload(payload).recipients == []


@pytest.mark.parametrize("special", [",", ":", "<>", "\\", "("])
def test_an_address_field_of_millions_of_special_characters_is_read_in_milliseconds(special: str) -> None:
    # Linear is not enough on the event loop: an address field is read up to a bound, whatever its size.
    field = special * 2_000_000
    payload = provider_event(field, [field] * 4)

    took = _timed(lambda: parse_payload(payload))

    assert took < FAST / 4
    assert (parse_payload(payload).sender, parse_payload(payload).recipients) == ("", [])


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
    claim = await _claim(app)
    unreadable = await post_standard(client, generic("nobody", claim_address(claim.id), text="First"))
    assert unreadable.status_code < 500, unreadable.text

    for depth in (3_000, 300_000):
        start = time.perf_counter()
        response = await post_standard(client, generic("(" * depth, claim_address(claim.id), text=f"{depth}"))
        assert time.perf_counter() - start < 5 * FAST
        assert (response.status_code, response.json()) == (unreadable.status_code, unreadable.json())
    assert await _bodies(app, claim.id) == []


async def test_a_recipient_of_nested_comments_is_no_claim_address_over_http(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    claim = await _claim(app)
    unaddressed = await post_provider(client, generic(CUSTOMER, "someone@example.com", text="First"))
    assert unaddressed.status_code < 500, unaddressed.text

    response = await post_provider(client, generic(CUSTOMER, "(" * 3_000 + claim_address(claim.id)))

    assert (response.status_code, response.json()) == (unaddressed.status_code, unaddressed.json())
    assert await _bodies(app, claim.id) == []


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
    claim = await _claim(app)
    if where == "recipient":
        payload = postmark(CUSTOMER, f"claim+{digits}@warranty.local")
    else:
        payload = postmark(CUSTOMER, "inbound@example.com") | {"MailboxHash": digits}

    response = await post_provider(client, payload, provider="postmark")

    assert response.status_code == 404, response.text
    assert response.json()["code"] == "NOT_FOUND"
    assert await _bodies(app, claim.id) == []


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


def test_long_character_references_in_attributes_and_bodies_stay_linear() -> None:
    html = f'<div class="&#{LONG};" id="&#x{"f" * 3000}">' + f"&#{LONG};" * 200 + "</div>"

    took = _timed(lambda: extract_reply("", html))

    assert took < FAST
    assert extract_reply("", html) == "\ufffd" * 200


async def test_an_html_reply_with_a_long_character_reference_is_posted_over_http(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    claim = await _claim(app)
    html = f"<div>The part is here &#{LONG}; thanks</div>"

    response = await post_standard(client, generic(CUSTOMER, claim_address(claim.id), text="", html=html))

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "processed"
    assert await _bodies(app, claim.id) == ["The part is here \ufffd thanks"]
