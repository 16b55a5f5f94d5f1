"""What a line of an email is by its shape (app/inbound/reply_lines.py): a quote, a delimiter, a titled
separator and a forward's marker, a mail program's footer, a header's label, and the signals of an
attribution (a time, a date, an address, a "wrote"); each shape tried only on lines short enough to be one."""

from __future__ import annotations

import pytest

from app.inbound.reply_lines import (
    MAX_SHAPED_LINE,
    ends_sentence,
    has_address,
    has_date,
    has_time,
    has_wrote_word,
    is_delimiter,
    is_footer,
    is_forward_marker,
    is_quote,
    label_of,
    titled_separator,
)


@pytest.mark.parametrize(
    ("line", "quote"),
    [
        ("> quoted", True),
        (">> nested", True),
        ("| Gmail's old quote", True),
        ("|", True),
        ("AB> Supercite's initials", True),
        ("| a | b |", False),  # a table row
        ("ABCD> four letters are a word", False),
        ("1> not initials", False),
        ("\u00c9> not ASCII initials", False),
        ("a > b", False),
        ("plain text", False),
    ],
)
def test_a_quote(line: str, quote: bool) -> None:
    assert is_quote(line) is quote


@pytest.mark.parametrize(
    ("line", "delimiter"),
    [
        ("--", True),
        ("__________", True),
        ("=-=-=", True),
        ("\u2014", True),  # an em dash alone
        ("-", False),
        ("-- Ann", False),
        ("", False),
        ("Ann --", False),
    ],
)
def test_a_delimiter(line: str, delimiter: bool) -> None:
    assert is_delimiter(line) is delimiter


def test_a_titled_separator_and_a_forwards_marker() -> None:
    assert titled_separator("-----Original Message-----") == "original message"
    assert titled_separator("== Ursprüngliche Nachricht ==:") == "ursprüngliche nachricht"
    assert titled_separator("-- a --") is None  # too short a title
    assert titled_separator("-" * 5 + "x" * MAX_SHAPED_LINE + "-" * 5) is None
    assert is_forward_marker("---------- Forwarded message ---------")
    assert is_forward_marker("-------- Weitergeleitete Nachricht --------")
    assert is_forward_marker("Begin forwarded message:")
    assert not is_forward_marker("-----Original Message-----")
    assert not is_forward_marker("Begin forwarded message: and then a whole sentence of text here")


@pytest.mark.parametrize(
    ("line", "footer"),
    [
        ("Sent from my iPhone", True),
        ("Sent from my Galaxy S24 Ultra", True),
        ("Envoyé de mon iPhone", True),
        ("Von meinem iPhone gesendet", True),
        ("Get Outlook for iOS", True),
        ("<Sent from Mail for Windows>", True),
        ("iPhoneから送信", True),
        ("I was sent from my office to fix it", False),
        ("Sent from my iPhone, which I dropped in the sink yesterday", False),
    ],
)
def test_a_mail_programs_footer(line: str, footer: bool) -> None:
    assert is_footer(line) is footer


@pytest.mark.parametrize(
    ("line", "label"),
    [
        ("From: Bob <bob@example.com>", "From"),
        ("**Sent:** Monday", "Sent"),
        ("Date de l'envoi : lundi", "Date de l'envoi"),
        ("Betreff\uff1a Angebot", "Betreff"),  # a full-width colon
        ("Betreff\uff1aAngebot", None),  # a label is followed by a space
        ("Subject:", "Subject"),
        ("This sentence is much too long: to be a label", None),
        ("http://example.com", None),
        ("12: a number", None),
        ("no label here", None),
        ("From: " + "x" * MAX_SHAPED_LINE, None),
    ],
)
def test_a_headers_label(line: str, label: str | None) -> None:
    assert label_of(line) == label


def test_the_signals_of_an_attribution() -> None:
    assert has_time("On Mon, 5 Jan 2026 at 10:12, Bob wrote:") and has_time("Sent: 5:44 PM")
    assert not has_time("a ratio of 1:2") and not has_time("no time here")
    assert has_date("On 05/01/2026 Bob wrote:") and has_date("Monday 1999") and has_date("at 10am")
    assert not has_date("in 2 days") and not has_date("no digits")
    assert has_address("Bob <bob@example.com>") and has_address("[mailto:bob@example.com]")
    assert not has_address("me @ home") and not has_address("at: noon")
    assert has_wrote_word("Bob schrieb:") and has_wrote_word("Le lundi, Bob a écrit :")
    assert not has_wrote_word("Bob said")


@pytest.mark.parametrize(
    ("line", "ends"),
    [
        ("Thanks!", True),
        ("Why?", True),
        ("Kind regards.", True),
        ("See you soon.", False),  # "soon." is no longer than an abbreviation
        ("Dr.", False),
        ("etc.", False),
        ("Thanks", False),
    ],
)
def test_the_end_of_a_sentence(line: str, ends: bool) -> None:
    assert ends_sentence(line) is ends
