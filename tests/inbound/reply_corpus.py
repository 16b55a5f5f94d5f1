"""The reply corpus (tests/inbound/replies/*.json: shape, text, html, expected) and the comparison of our
rules with the mail-parser-reply package on it.

`python -m tests.inbound.reply_corpus` prints how many cases each extractor gets exactly right.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mailparser_reply import EmailReplyParser

from app.inbound.reply import extract_reply, html_to_text

CORPUS = Path(__file__).parent / "replies"
LANGUAGES = ["en", "de", "fr", "es", "it", "nl"]


def load_cases() -> list[tuple[str, dict[str, Any]]]:
    return [(path.stem, json.loads(path.read_text())) for path in sorted(CORPUS.glob("*.json"))]


def ours(case: dict[str, Any]) -> str:
    return extract_reply(case["text"], case["html"])


def _library(text: str) -> str:
    message = EmailReplyParser(languages=LANGUAGES).read(text)
    return message.replies[0].body.strip() if message.replies else ""


def library(case: dict[str, Any]) -> str:
    """mail-parser-reply's reply body (signatures removed); HTML converted to text first (it reads text)."""
    return _library(case["text"] if case["text"].strip() else html_to_text(case["html"]))


def library_combined(case: dict[str, Any]) -> str:
    """The package after our HTML quote stripping and our `>` rule: the best combination we found."""
    source = case["text"] if case["text"].strip() else html_to_text(case["html"], strip_quotes=True)
    unquoted = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(">"))
    return _library(unquoted)


EXTRACTORS: dict[str, Callable[[dict[str, Any]], str]] = {
    "ours": ours,
    "mail-parser-reply": library,
    "mail-parser-reply + our HTML and > rules": library_combined,
}


def scores() -> dict[str, list[str]]:
    """The names of the cases each extractor gets exactly right."""
    right: dict[str, list[str]] = {name: [] for name in EXTRACTORS}
    for case_name, case in load_cases():
        for name, extract in EXTRACTORS.items():
            if extract(case) == case["expected"]:
                right[name].append(case_name)
    return right


if __name__ == "__main__":
    total = len(load_cases())
    for name, passed in scores().items():
        print(f"{name}: {len(passed)}/{total}")
