"""HTML to text (app/inbound/html_text.py), in one pass and time linear in the input: block structure as line
breaks, hidden and script content left out, character references decoded as the HTML standard says
without converting numbers past the largest code point, and with `strip_quotes` mail programs' quote
containers turned into marker lines (their own answers below or between quotes kept) and Outlook's
reply header ending the document."""

from __future__ import annotations

import html

import httpx
import pytest
from fastapi import FastAPI

from app.inbound.html_text import QUOTE_MARK, RULE_MARK, clean, html_to_text, tidy
from app.inbound.reply import extract_reply
from tests.factories.inbound import SECRETS, claim_address, generic, post_standard
from tests.inbound.support import CUSTOMER, LONG, bodies_of, new_claim


def test_invisible_characters_go_and_a_no_break_space_is_a_space() -> None:
    written = "a\u200bb\u200e c\u202e\ufeffd\u00ade\u00a0f\u1427" + QUOTE_MARK + RULE_MARK

    assert clean(written) == "ab cde f"


def test_blank_lines_are_trimmed_and_never_two_in_a_row() -> None:
    assert tidy(["", "  ", "one", "", "", " ", "two", "", ""]) == "one\n\ntwo"
    assert tidy(["", ""]) == ""


def test_blocks_paragraphs_and_breaks_shape_the_lines() -> None:
    page = (
        "<html><head><title>Not shown</title><style>p {color: red}</style></head><body>"
        "<p>First   paragraph,\n wrapped.</p><p>Second<br>line two<br/>line three</p>"
        "<div>a div</div><table><tr><td>cell 1</td><td>cell 2</td></tr></table>"
        "<template>never</template><span/>after a self-closed span"
        "</body></html>"
    )

    assert html_to_text(page) == (
        "First paragraph, wrapped.\n\nSecond\nline two\nline three\n\na div\ncell 1cell 2\n"
        "after a self-closed span"
    )


def test_what_is_not_a_tag_is_text_and_what_never_ends_ends_the_document() -> None:
    assert html_to_text("<p>1 < 2 and 3 <> 4</p>") == "1 < 2 and 3 <> 4"
    assert html_to_text("<p>Kept</p><!-- a comment that never ends <p>lost</p>") == "Kept"
    assert html_to_text("<p>Kept</p><script>never closed <p>lost</p>") == "Kept"
    assert html_to_text("<p>Kept</p><div class='never closed") == "Kept"
    assert html_to_text("<!doctype html><?xml x?><![CDATA[x]]><p>Kept</p>") == "Kept"


def test_without_strip_quotes_a_quote_is_text_like_any_other() -> None:
    assert html_to_text("<p>Answer</p><blockquote>Question</blockquote>") == "Answer\n\nQuestion"


def test_quote_containers_and_rules_become_marker_lines() -> None:
    page = (
        "<p>Answer</p><blockquote type='cite'><p>Question</p></blockquote>"
        "<p>More</p><hr><p>Below the rule</p>"
        "<div class='moz-cite-prefix'>On Monday Bob wrote:</div>"
    )

    assert html_to_text(page, strip_quotes=True).split("\n\n") == [
        "Answer", QUOTE_MARK, "More", RULE_MARK, "Below the rule", QUOTE_MARK,
    ]  # fmt: skip


def test_a_wrapper_keeps_what_follows_its_own_first_quote() -> None:
    gmail = (
        "<div class='gmail_quote'><div class='gmail_attr'>On Mon, Bob wrote:</div>"
        "<blockquote class='gmail_quote'>Question one?</blockquote>"
        "<div>Answer one.</div>"
        "<blockquote class='gmail_quote'>Question two?</blockquote>"
        "<div>Answer two.</div></div>"
    )
    forward = "<div class='gmail_quote'>---------- Forwarded message ---------<div>Original</div></div>"

    # The wrapper's mark, then its quotes' own: its attribution is left out, the answers kept.
    assert html_to_text(gmail, strip_quotes=True).split("\n") == [
        QUOTE_MARK, QUOTE_MARK, "Answer one.", QUOTE_MARK, "Answer two.",
    ]  # fmt: skip
    assert html_to_text(f"<p>FYI</p>{forward}", strip_quotes=True) == f"FYI\n\n{QUOTE_MARK}"  # nothing of it


@pytest.mark.parametrize(
    "header",
    [
        "<div id='divRplyFwdMsg'><b>From:</b> Bob</div>",
        "<div id='x_appendonsend'></div>",
        "<div style='border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt'><b>From:</b> Bob</div>",
    ],
    ids=["outlook-web", "outlook-mac", "outlook-desktop"],
)
def test_outlooks_reply_header_ends_the_document(header: str) -> None:
    page = f"<div>My answer</div>{header}<div>The original message</div>"

    assert html_to_text(page, strip_quotes=True) == "My answer"
    assert "The original message" in html_to_text(page)


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


@pytest.mark.settings(**SECRETS)
async def test_an_html_reply_with_a_long_character_reference_is_posted_over_http(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    claim = await new_claim(app)
    html = f"<div>The part is here &#{LONG}; thanks</div>"

    response = await post_standard(client, generic(CUSTOMER, claim_address(claim.id), text="", html=html))

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "processed"
    assert await bodies_of(app, claim.id) == ["The part is here \ufffd thanks"]


def test_html_conversion_keeps_text_of_links_lists_and_entities() -> None:
    html = "<ul><li>One &amp; two</li><li><a href='https://x.example'>link</a></li></ul><script>x()</script>"

    assert html_to_text(html) == "One & two\nlink"


def test_badly_nested_html_does_not_swallow_the_reply() -> None:
    html = "<div>Before<blockquote><div>quoted</blockquote></div><p>After</p>"

    assert extract_reply("", html) == "Before\n\nAfter"


def test_a_quadratic_input_for_html_parser_is_read_as_text() -> None:
    # html.parser rescans "</" and "<a " runs; our tokenizer reads each character once.
    assert html_to_text("<p>Kept</p>" + "</" * 20_000) == "Kept"
    assert extract_reply("", "<div>Kept</div><a " * 1) == "Kept"
