from __future__ import annotations

import threading
from typing import Any

import pytest

from app.inbound import reply as reply_module
from app.inbound.reply import (
    OurAddresses,
    cut_part,
    extract_reply,
    extract_reply_off_loop,
    reply_from_text,
)
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


def test_parts_over_the_limit_are_cut_before_parsing() -> None:
    assert cut_part("é" * 10, 5) == "éé"  # 2 bytes each: the third would be cut in two, so it is dropped
    assert cut_part("short", 1024) == "short"


async def test_extraction_runs_off_the_event_loop_on_the_cut_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    loop_thread = threading.get_ident()
    threads: list[int] = []
    original = reply_module.extract_reply

    def spy(text: str, html: str, ours: OurAddresses | None = None) -> str:
        threads.append(threading.get_ident())
        return original(text, html, ours)

    monkeypatch.setattr(reply_module, "extract_reply", spy)
    reply = await extract_reply_off_loop("Kept line\n" + "x" * 5000, "", max_part=12)

    assert reply == "Kept line\nxx"  # 12 bytes
    assert threads and threads[0] != loop_thread


def test_a_rule_ends_the_reply_only_above_a_quoted_message_s_headers() -> None:
    headers = "<hr><b>From:</b> Bob &lt;bob@example.com&gt;<br><b>Sent:</b> Monday<br>Hello"
    assert extract_reply("", f"<p>Thanks</p>{headers}") == "Thanks"
    assert extract_reply("", "<p>Thanks</p><hr><p>P.S.: the box is in the garage.</p>") == (
        "Thanks\n\nP.S.: the box is in the garage."
    )


@pytest.mark.parametrize(
    "quoted",
    [
        # Yahoo Mail
        '<div class="yahoo_quoted" id="yahoo_quoted_123"><div>On Tuesday, November 24, 2026, 11:30 AM, '
        "Bob &lt;bob@example.com&gt; wrote:</div><div>Original</div></div>",
        # Proton Mail
        '<div class="protonmail_quote">------- Original Message -------<br>On Tuesday, November 24th, '
        "2026 at 11:30, Bob &lt;bob@example.com&gt; wrote:<blockquote>Original</blockquote></div>",
        # new Outlook / Outlook on the web
        '<div id="appendonsend"></div><hr style="display:inline-block;width:98%"><div id="divRplyFwdMsg">'
        "<b>From:</b> Bob<br><b>Sent:</b> Tuesday<br></div><div>Original</div>",
        # Thunderbird
        '<div class="moz-cite-prefix">On 24/11/2026 11:30, Bob wrote:<br></div><blockquote type="cite">'
        "Original</blockquote>",
        # Windows Mail / Hotmail: a top border, then the header block
        '<div style="border-top-color: rgb(229,229,229); border-top-width: 1px; border-top-style: solid;">'
        "<b>From:</b> <a href='mailto:bob@example.com'>Bob</a><br><b>Sent:</b> 24 November 2026 11:30</div>"
        "<div>Original</div>",
    ],
    ids=["yahoo", "proton", "outlook-web", "thunderbird", "windows-mail"],
)
def test_html_quote_containers_of_common_programs(quoted: str) -> None:
    assert extract_reply("", f"<div>My answer</div>{quoted}") == "My answer"
