"""The new text of an email reply: quotes, quoted messages' headers, signatures and footers removed.

One pass over the lines, each looked at a bounded number of times, so the time is linear in the input
(`reply_lines.py` says why each check is). What ends the reply, by shape rather than by any one mail
program's wording:

- an attribution: one to four lines holding a date or time (or an address), ending with a colon, like
  "On Mon, 2 Apr 2012 at 18:26, Ann <ann@example.com> wrote:" in any language and however wrapped. When
  quoted lines (`>`) follow it, only it and the quote are dropped and what follows is kept (a reply
  written below or between quotes); when the original follows unquoted, everything from it on is cut.
  One at the very top (nothing written before it) is dropped, the rest kept (bottom-posting);
- a header block: `Label: value` lines (From/Sent/To, Von/Gesendet, De/Envoyé, 发件人...) holding a time
  and an address, or four of them holding a time; a titled separator (`-----Original Message-----`);
- a signature delimiter (`-- `) or any line of dashes, underscores...; a mail program's footer ("Sent
  from my iPhone", "Envoyé depuis mon iPhone") when nothing of the writer's follows it;
- our notifications' marker line unquoted, or an attribution naming our addresses above an unquoted
  original: our email follows. Quoted, our email is a quote like any other: answers below it are kept.

Forwarded messages ("---------- Forwarded message ----------") are kept: forwarding is what was sent.
HTML is converted first by `html_text.py`, which marks quote containers and rules for these rules.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from app.inbound.html_text import QUOTE_MARK, RULE_MARK, clean, html_to_text, tidy
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
from app.notifications.render import REPLY_MARKER

__all__ = [
    "OurAddresses",
    "extract_reply",
    "extract_reply_off_loop",
    "html_to_text",
    "reply_from_html",
    "reply_from_text",
]

_ATTRIBUTION_LINES = 4  # non-blank lines an attribution may be wrapped over
_ATTRIBUTION_SPAN = 6  # physical lines, blank ones included
_HEADER_BLOCK_LINES = 14
_LOOKAHEAD = 50  # blank lines looked past to find what follows a line
_MARKER_WORDS = REPLY_MARKER.strip("- ")
_COLONS = (":", "\uff1a")


@dataclass(frozen=True)
class OurAddresses:
    """The service's sender address and reply domain: a line naming them starts a quoted email of ours."""

    sender: str  # "notifications@warranty.example"
    mail_domain: str  # replies go to claim+<id>@mail_domain

    def named_in(self, line: str) -> bool:
        if "@" not in line:
            return False
        lowered = line.lower()
        if self.sender and self.sender.lower() in lowered:
            return True
        return "claim+" in lowered and f"@{self.mail_domain.lower()}" in lowered


def _next_text(lines: list[str], start: int) -> int | None:
    for index in range(start, min(len(lines), start + _LOOKAHEAD)):
        if lines[index].strip():
            return index
    return None


def _followed_by_quote(lines: list[str], start: int) -> bool:
    index = _next_text(lines, start)
    if index is None:
        return False
    following = lines[index].strip()
    return following == QUOTE_MARK or is_quote(following)


def _names_us(lines: list[str], index: int, ours: OurAddresses | None) -> bool:
    """An attribution or `From:` line naming our address, in any language ("Warranty <...> a écrit :"),
    also with the address wrapped onto the next line."""
    line = lines[index].strip()
    if ours is None or len(line) > MAX_SHAPED_LINE:
        return False
    following = _next_text(lines, index + 1)
    next_line = lines[following].strip() if following is not None else ""
    if ours.named_in(line):
        return line.endswith(_COLONS) or label_of(line) is not None or next_line.endswith(_COLONS)
    wrapped = following == index + 1 and len(next_line) <= MAX_SHAPED_LINE and not ends_sentence(line)
    return wrapped and next_line.endswith(_COLONS) and ours.named_in(next_line)


def _our_attribution_end(lines: list[str], index: int) -> int | None:
    """The last line of the attribution naming us at `index` (maybe wrapped), or None for a header line
    ("From: Warranty <...>"), which starts an unquoted original."""
    if lines[index].strip().endswith(_COLONS):
        return index
    following = _next_text(lines, index + 1)
    if following is None or label_of(lines[index].strip()) is not None:
        return None
    return following if lines[following].strip().endswith(_COLONS) else None


def _attribution_end(lines: list[str], start: int) -> int | None:
    """The last line of an attribution starting at `start`, or None."""
    first = lines[start].strip()
    if len(first) > MAX_SHAPED_LINE or is_quote(first) or not (has_date(first) or has_address(first)):
        return None
    parts = [first]
    index = start
    blanks = 0
    while not parts[-1].endswith(_COLONS):
        if (
            len(parts) == 1
            and has_date(first)
            and has_address(first)
            and _followed_by_quote(lines, start + 1)
        ):
            return start  # Gmail's old "2013/7/20 Ann <ann@example.com>" with no colon, then the quote
        if len(parts) == _ATTRIBUTION_LINES or ends_sentence(parts[-1]):
            return None
        index += 1
        if index >= len(lines) or index - start >= _ATTRIBUTION_SPAN:
            return None
        line = lines[index].strip()
        if not line:
            blanks += 1
            if blanks > 1:
                return None
            continue
        joined = " ".join(parts)
        # A quoted line only continues an address broken inside its <...> (Polymail's "<\nmailto:...\n>").
        if len(line) > MAX_SHAPED_LINE or (is_quote(line) and joined.count("<") <= joined.count(">")):
            return None
        parts.append(line)
    joined = " ".join(parts)
    date, address, wrote = has_date(joined), has_address(joined), has_wrote_word(joined)
    if _followed_by_quote(lines, index + 1):
        return index if date or address or wrote else None
    return index if date and (address or wrote) else None


def _header_block(lines: list[str], start: int) -> bool:
    """Whether `Label: value` lines from `start` are a quoted message's header block."""
    labels = 0
    loose = 0
    time = address = False
    for index in range(start, min(len(lines), start + _HEADER_BLOCK_LINES)):
        line = lines[index].strip()
        if not line or len(line) > MAX_SHAPED_LINE:
            break
        if label_of(line) is not None:
            labels += 1
            loose = 0
        else:  # a value wrapped onto the next line
            loose += 1
            if loose > 1:
                break
        time = time or has_time(line)
        address = address or has_address(line)
    return time and ((labels >= 2 and address) or labels >= 4)


def _headers_follow(lines: list[str], start: int) -> bool:
    """Whether `Label: value` lines naming an address or a time come next (a quoted message's headers
    under a rule, as Hotmail and webmails write them; "P.S.: ..." under a rule is the writer's)."""
    first = _next_text(lines, start)
    if first is None or label_of(lines[first].strip()) is None:
        return False
    for index in range(first, min(len(lines), first + _HEADER_BLOCK_LINES)):
        line = lines[index].strip()
        if not line or len(line) > MAX_SHAPED_LINE:
            return False
        if has_address(line) or has_time(line):
            return True
    return False


def _starts_quoted_message(lines: list[str], index: int) -> bool:
    line = lines[index].strip()
    if line in (QUOTE_MARK, RULE_MARK) or is_quote(line) or is_delimiter(line) or is_footer(line):
        return True
    if titled_separator(line) is not None:
        return True
    if label_of(line) is not None and _header_block(lines, index):
        return True
    return _attribution_end(lines, index) is not None


def _scan(lines: list[str], ours: OurAddresses | None = None) -> str:
    kept: list[str] = []
    wrote = False  # whether anything of the writer's was kept yet
    index = 0
    while index < len(lines):
        line = lines[index].strip()
        if not line:
            kept.append("")
        elif line == QUOTE_MARK or is_quote(line):
            pass  # quoted, our email included: what the writer put below or between quotes is kept
        elif _MARKER_WORDS in line:
            break  # our email, unquoted: everything below the marker is ours
        elif _names_us(lines, index, ours):
            end = _our_attribution_end(lines, index)
            if end is None or not _followed_by_quote(lines, end + 1):
                break  # our email follows unquoted
            index = end
        elif line == RULE_MARK:
            if _headers_follow(lines, index + 1):
                break
        elif is_forward_marker(line):
            while index < len(lines) and lines[index].strip():  # the marker and the forwarded headers
                kept.append(lines[index].rstrip())
                index += 1
            wrote = True
            continue
        elif is_delimiter(line) or titled_separator(line) is not None:
            break
        elif is_footer(line):
            following = _next_text(lines, index + 1)
            if following is None or _starts_quoted_message(lines, following):
                break
            kept.append(lines[index].rstrip())
            wrote = True
        elif label_of(line) is not None and _header_block(lines, index):
            break
        else:
            end = _attribution_end(lines, index)
            if end is None:
                kept.append(lines[index].rstrip())
                wrote = True
            elif wrote and not _followed_by_quote(lines, end + 1):
                break
            else:
                index = end
        index += 1
    return tidy(kept)


def reply_from_text(text: str, ours: OurAddresses | None = None) -> str:
    """The new part of a plain-text reply."""
    return _scan(clean(text.replace("\r\n", "\n").replace("\r", "\n")).split("\n"), ours)


def reply_from_html(html: str, ours: OurAddresses | None = None) -> str:
    """The new part of an HTML-only reply."""
    return _scan(html_to_text(html, strip_quotes=True).split("\n"), ours)


def extract_reply(text: str, html: str, ours: OurAddresses | None = None) -> str:
    """The new reply text: from the text part when there is one, else from the HTML part."""
    if text.strip():
        return reply_from_text(text, ours)
    if html.strip():
        return reply_from_html(html, ours)
    return ""


def cut_part(part: str, max_bytes: int) -> str:
    """At most `max_bytes` of UTF-8 of a body part (a character cut in two is dropped)."""
    if len(part) * 4 <= max_bytes:
        return part
    encoded = part.encode("utf-8", "replace")
    if len(encoded) <= max_bytes:
        return part
    return encoded[:max_bytes].decode("utf-8", "ignore")


async def extract_reply_off_loop(
    text: str, html: str, *, max_part: int, ours: OurAddresses | None = None
) -> str:
    """`extract_reply` on parts cut to `max_part` bytes, in a worker thread: the event loop keeps serving."""

    def work() -> str:
        return extract_reply(cut_part(text, max_part), cut_part(html, max_part), ours)

    return await asyncio.to_thread(work)
