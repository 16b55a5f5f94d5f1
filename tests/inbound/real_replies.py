"""The real-world reply corpus beside the repository (`../shared/corpora/email-replies/`) and its scoring.

The corpus is read where it lies, never copied into the project. Scoring follows its README: every
`must_contain` line appears in the reply (whitespace-normalized; inside a longer line is fine, inside a
longer word is not), and no `must_not_contain` line does (after leading `>` markers are stripped; a line
shorter than 12 characters only counts when it is a whole line of the reply).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "email-replies" / "cases.json"

_INVISIBLE = re.compile("[\u200b\u200c\u200d\u200e\u200f\u2060\ufeff\u00ad]")
_SPACES = re.compile(r"\s+")
_QUOTE_MARKERS = re.compile(r"^[>\s]+")


def load_cases() -> list[dict[str, Any]]:
    """The cases, or [] when the corpus is not beside the repository."""
    if not CORPUS.is_file():
        return []
    return list(json.loads(CORPUS.read_text(encoding="utf-8"))["cases"])


def _normalized(line: str) -> str:
    return _SPACES.sub(" ", _INVISIBLE.sub("", line)).strip()


def _contains_words(haystack: str, needle: str) -> bool:
    start = haystack.find(needle)
    while start >= 0:
        end = start + len(needle)
        before = haystack[start - 1] if start else " "
        after = haystack[end] if end < len(haystack) else " "
        if not (before.isalnum() and needle[0].isalnum()) and not (after.isalnum() and needle[-1].isalnum()):
            return True
        start = haystack.find(needle, start + 1)
    return False


def failures(case: dict[str, Any], reply: str) -> list[str]:
    """What is wrong with `reply` for `case` (empty when it passes)."""
    lines = [_normalized(line) for line in reply.splitlines()]
    unquoted = [_QUOTE_MARKERS.sub("", line) for line in lines]
    wrong = []
    for wanted in case["must_contain"]:
        needle = _normalized(wanted)
        if needle and not any(_contains_words(line, needle) for line in lines):
            wrong.append(f"missing: {wanted!r}")
    for unwanted in case["must_not_contain"]:
        needle = _QUOTE_MARKERS.sub("", _normalized(unwanted))
        if not needle:
            continue
        found = any(needle in line for line in unquoted) if len(needle) >= 12 else needle in unquoted
        if found:
            wrong.append(f"kept: {unwanted!r}")
    return wrong


def passed(extract: Callable[[str, str], str], cases: list[dict[str, Any]]) -> list[str]:
    """The ids of the cases `extract(text, html)` passes."""
    return [case["id"] for case in cases if not failures(case, extract(case["text"], case["html"]))]
