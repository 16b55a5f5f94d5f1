from __future__ import annotations

from typing import Any

import pytest

from app.inbound.reply import extract_reply, html_to_text, reply_from_text
from tests.inbound.reply_corpus import load_cases, scores

CASES = load_cases()


def test_the_corpus_holds_at_least_twenty_real_world_shapes() -> None:
    assert len(CASES) >= 20
    assert sum(1 for _name, case in CASES if not case["text"] and case["html"]) >= 5


@pytest.mark.parametrize(("name", "case"), CASES, ids=[name for name, _case in CASES])
def test_reply_extraction_matches_the_expected_text_exactly(name: str, case: dict[str, Any]) -> None:
    assert extract_reply(case["text"], case["html"]) == case["expected"], case["shape"]


def test_our_rules_get_more_cases_right_than_mail_parser_reply() -> None:
    right = scores()

    assert len(right["ours"]) == len(CASES)
    assert len(right["ours"]) > len(right["mail-parser-reply"])
    assert len(right["ours"]) > len(right["mail-parser-reply + our HTML and > rules"])


def test_text_part_wins_over_html_part() -> None:
    assert extract_reply("From the text part.", "<p>From the HTML part.</p>") == "From the text part."
    assert extract_reply("  \n", "<p>From the HTML part.</p>") == "From the HTML part."
    assert extract_reply("", "") == ""


def test_quoted_lines_are_dropped_wherever_they_are() -> None:
    assert reply_from_text("  > indented quote\nkept\n>> nested\nalso kept") == "kept\nalso kept"


def test_a_signature_delimiter_without_its_trailing_space_still_cuts() -> None:
    assert reply_from_text("Body\n--\nAnn Example") == "Body"


def test_html_conversion_keeps_text_of_links_lists_and_entities() -> None:
    html = "<ul><li>One &amp; two</li><li><a href='https://x.example'>link</a></li></ul><script>x()</script>"

    assert html_to_text(html) == "One & two\nlink"


def test_badly_nested_html_does_not_swallow_the_reply() -> None:
    html = "<div>Before<blockquote><div>quoted</blockquote></div><p>After</p>"

    assert extract_reply("", html) == "Before\n\nAfter"
