"""Reply extraction on real-world mail written by others (`../shared/corpora/email-replies/`, read in place).

The corpus is a sample of other people's mail programs and languages; the service's rules were not written
case by case against it (none names one case's text). The pass count is printed in the test report.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.inbound.reply import extract_reply
from tests.inbound.real_replies import CORPUS, failures, load_cases, passed

CASES = load_cases()
pytestmark = pytest.mark.skipif(not CASES, reason=f"the real-world reply corpus is not at {CORPUS}")
TARGET = 95


def _report(capsys: pytest.CaptureFixture[str], line: str) -> None:
    with capsys.disabled():
        print(f"\n{line}")


def test_at_least_95_of_the_real_world_replies_come_out_right(capsys: pytest.CaptureFixture[str]) -> None:
    ours = passed(extract_reply, CASES)
    _report(capsys, f"real-world reply corpus: {len(ours)}/{len(CASES)} cases pass")
    wrong = {
        case["id"]: failures(case, extract_reply(case["text"], case["html"]))
        for case in CASES
        if case["id"] not in ours
    }

    assert len(ours) >= TARGET, wrong


def test_more_real_world_replies_come_out_right_than_with_mail_parser_reply(
    capsys: pytest.CaptureFixture[str],
) -> None:
    reply_parser = pytest.importorskip("mailparser_reply", reason="mail-parser-reply is a test-only extra")
    from app.inbound.html_text import html_to_text

    def library(text: str, html: str) -> str:
        source = text if text.strip() else html_to_text(html)
        message = reply_parser.EmailReplyParser(languages=["en", "de", "fr", "es", "it", "nl"]).read(source)
        return message.replies[0].body.strip() if message.replies else ""

    theirs = passed(library, CASES)
    ours = passed(extract_reply, CASES)
    _report(capsys, f"real-world reply corpus: mail-parser-reply {len(theirs)}/{len(CASES)}")

    assert len(ours) > len(theirs)


@pytest.mark.parametrize("case", [case for case in CASES if not case["text"].strip()], ids=lambda c: c["id"])
def test_html_only_replies_lose_their_quote_containers(case: dict[str, Any]) -> None:
    reply = extract_reply("", case["html"])

    assert not [problem for problem in failures(case, reply) if problem.startswith("kept")]
