"""HTML to text in one pass, in time linear in the input, with mail programs' quote containers left out.

The tokenizer is our own rather than `html.parser`: the standard library's parser rescans unfinished
constructs and takes quadratic time on inputs such as `</</</...` or `<a <a <a ...`, which anyone can put
in an email. Here every character is looked at a bounded number of times: each `find` starts where the
previous one stopped, and a construct that never ends (a comment, a tag, a script) ends the document.

With `strip_quotes`, quoted parts become marker lines for the text rules (`reply.py`) instead of text:
`QUOTE_MARK` where a quote container was (Gmail, Yahoo, Apple Mail, Thunderbird, any blockquote), and
`RULE_MARK` where a horizontal rule or a top-bordered box starts (Hotmail, Windows Mail and webmails put
the quoted message's header block under one). Outlook's reply header ends the document. In Gmail's,
Yahoo's, Proton's and Zoho's containers one answers below or between the quotes: what such a container
holds after its own first quote is kept.
"""

from __future__ import annotations

import html as html_entities
import re
from collections import Counter
from collections.abc import Iterator

from app.core.numbers import max_digits_of

QUOTE_MARK = "\ue001"  # a private-use character: never in what a person wrote (it is removed from text)
RULE_MARK = "\ue000"

_INVISIBLE = str.maketrans(
    dict.fromkeys(
        map(ord, "\u200b\u200c\u200d\u200e\u200f\u2060\u2066\u2067\u2068\u2069\u202a\u202b\u202c\u202d\u202e"
            "\ufeff\u00ad\u1427" + QUOTE_MARK + RULE_MARK),
        None,
    )
    | {0xA0: " "}
)  # fmt: skip
# U+1427 is the dot that mail trackers (Mixmax, Streak) add at the end of a message.


def clean(text: str) -> str:
    """Text without invisible characters (zero-width, bidi marks, trackers' dot) and with NBSP as space."""
    return text.translate(_INVISIBLE)


_BLOCKS = {
    "address", "article", "aside", "dd", "div", "dl", "dt", "fieldset", "figure", "footer", "form",
    "h1", "h2", "h3", "h4", "h5", "h6", "header", "li", "main", "nav", "ol", "pre", "section",
    "table", "tr", "ul", "center",
}  # fmt: skip
_PARAGRAPHS = {"p"}
_HIDDEN = {"head", "title", "template"}
_RAW_TEXT = {"script", "style", "textarea", "xmp"}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# Containers whose content is a quote or a signature, never the reply.
_QUOTE_CLASSES = {"gmail_signature", "moz-cite-prefix", "moz-signature"}
# Containers of an attribution and its quote, where one also answers below or between the quotes (Gmail
# splits its blockquote where one writes inside it): left out up to their own first quote, and wholly
# when they have none (a forward, or an original the program did not quote).
_WRAPPER_CLASSES = {"gmail_quote", "gmail_quote_container", "yahoo_quoted", "protonmail_quote", "zmail_extra"}
# Elements from which on everything is the original message (Outlook on the web and for Mac).
_STOP_IDS = {
    "divrplyfwdmsg", "x_divrplyfwdmsg", "appendonsend", "x_appendonsend", "olk_src_body_section",
    "mail-editor-reference-message-container",
}  # fmt: skip
_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9:-]{0,40}")
_ATTRIBUTE = re.compile(r"""([^\s=/>"']{1,60})(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?""")
_MAX_ATTRIBUTES_TEXT = 4096  # attributes past this many characters of a tag are not read
_SPACES = re.compile(r"[ \t\r\n\f]+")


def _tokens(html: str) -> Iterator[tuple[str, str, str]]:
    """("text", data, "") | ("start", name, attributes) | ("end", name, "") in document order."""
    lower = html.lower()
    length = len(html)
    position = 0
    while position < length:
        lt = html.find("<", position)
        if lt < 0:
            yield "text", html[position:], ""
            return
        if lt > position:
            yield "text", html[position:lt], ""
        if html.startswith("<!--", lt):
            end = html.find("-->", lt + 4)
            if end < 0:
                return
            position = end + 3
            continue
        following = html[lt + 1 : lt + 2]
        if not (following.isalpha() or following in ("/", "!", "?")):
            yield "text", "<", ""
            position = lt + 1
            continue
        gt = html.find(">", lt + 1)
        if gt < 0:  # no tag ever closes after this point: nothing after it is text
            return
        position = gt + 1
        inner = html[lt + 1 : gt]
        if following in ("!", "?"):  # doctype, CDATA, processing instruction, conditional comment
            continue
        closing = following == "/"
        match = _TAG_NAME.match(inner, 1 if closing else 0)
        if match is None:
            continue
        name = match.group().lower()
        if closing:
            yield "end", name, ""
            continue
        yield "start", name, inner[match.end() : match.end() + _MAX_ATTRIBUTES_TEXT]
        if name in _RAW_TEXT:
            end = lower.find(f"</{name}", position)
            if end < 0:
                return
            position = end
        elif inner.endswith("/") and name not in _VOID:
            yield "end", name, ""


# What `html.unescape` finds (its own pattern): a numeric reference of any length, or a name.
_REFERENCE = re.compile(r"&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)")
_MAX_CODE_POINT = 0x10FFFF
_MAX_DECIMAL_DIGITS = max_digits_of(_MAX_CODE_POINT)
_MAX_HEX_DIGITS = len(f"{_MAX_CODE_POINT:x}")


def _reference(match: re.Match[str]) -> str:
    reference = match.group()
    if reference[1] != "#":
        return html_entities.unescape(reference)
    hexadecimal = reference[2] in "xX"
    digits = reference[3 if hexadecimal else 2 :].rstrip(";").lstrip("0") or "0"
    if len(digits) > (_MAX_HEX_DIGITS if hexadecimal else _MAX_DECIMAL_DIGITS):
        return "\ufffd"  # past U+10FFFF, however many digits: the HTML standard's replacement character
    return html_entities.unescape(f"&#{'x' if hexadecimal else ''}{digits};")


def unescape(text: str) -> str:
    """`html.unescape`, with numbers measured before they are converted (Python refuses 4,301 digits)."""
    return _REFERENCE.sub(_reference, text) if "&" in text else text


def _attributes(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for match in _ATTRIBUTE.finditer(text):
        value = next((group for group in match.groups()[1:] if group is not None), "")
        found.setdefault(match.group(1).lower(), unescape(value))
    return found


def _starts_outlook_header(name: str, attributes: dict[str, str]) -> bool:
    if attributes.get("id", "").lower() in _STOP_IDS:
        return True
    style = attributes.get("style", "").replace(" ", "").lower()
    # Outlook desktop: <div style="border:none;border-top:solid #E1E1E1 1.0pt;..."><p><b>From:</b> ...
    return name == "div" and "border-top:solid" in style and "border:none" in style


def _has_top_rule(name: str, attributes: dict[str, str]) -> bool:
    style = attributes.get("style", "").replace(" ", "").lower()
    return name == "hr" or (
        name == "div" and ("border-top-style:solid" in style or "border-top:solid" in style)
    )


def _classes(attributes: dict[str, str]) -> set[str]:
    return set(attributes.get("class", "").lower().split())


def _is_quote_container(name: str, attributes: dict[str, str]) -> bool:
    return (
        name == "blockquote"
        or bool(_classes(attributes) & _QUOTE_CLASSES)
        or attributes.get("type") == "cite"
    )


def _is_quote_wrapper(name: str, attributes: dict[str, str]) -> bool:
    return name != "blockquote" and bool(_classes(attributes) & _WRAPPER_CLASSES)


class _Text:
    """The text being written, with what block structure asks for (a line break, a blank line)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.trailing_newlines = 0
        self.empty = True

    def text(self, data: str) -> None:
        data = _SPACES.sub(" ", clean(data))
        if not data or (data == " " and (self.empty or self.trailing_newlines)):
            return
        if self.trailing_newlines and data.startswith(" "):
            data = data[1:]
        self.parts.append(data)
        self.trailing_newlines = 0
        self.empty = False

    def breaks(self, wanted: int) -> None:
        """At least `wanted` line breaks here (block edges do not add up)."""
        if not self.empty and self.trailing_newlines < wanted:
            self.parts.append("\n" * (wanted - self.trailing_newlines))
            self.trailing_newlines = wanted

    def line_break(self) -> None:
        self.parts.append("\n")
        self.trailing_newlines += 1
        self.empty = False

    def marker(self, mark: str) -> None:
        self.breaks(1)
        self.parts.append(f"{mark}\n")
        self.trailing_newlines = 1
        self.empty = False


class _Subtree:
    """The open elements of a subtree left out, closed as browsers close badly nested mail HTML: an end
    tag closes everything up to its matching open tag, and one that matches none is ignored."""

    def __init__(self, root: str) -> None:
        self.names = [root]
        self.counts = Counter(self.names)

    def open(self, name: str) -> None:
        if name not in _VOID:
            self.names.append(name)
            self.counts[name] += 1

    def close(self, name: str) -> bool:
        """Close `name`; True once the subtree's root is closed."""
        if self.counts[name]:
            while self.names:
                popped = self.names.pop()
                self.counts[popped] -= 1
                if popped == name:
                    break
        return not self.names


class _Reader:
    """The text of the tokens, with quote containers (`skipped`) and the head of a quote wrapper (its
    attribution, up to the wrapper's own first quote: `heading`) left out."""

    def __init__(self, strip_quotes: bool) -> None:
        self.out = _Text()
        self.strip_quotes = strip_quotes
        self.skipped: _Subtree | None = None
        self.heading: _Subtree | None = None
        self.hidden = 0

    def text(self, data: str) -> None:
        if self.skipped is None and self.heading is None and not self.hidden:
            self.out.text(unescape(data))

    def end(self, name: str) -> None:
        if self.skipped is not None:
            self.skipped = None if self.skipped.close(name) else self.skipped
        elif self.heading is not None:  # a wrapper that ends before any quote: all of it was left out
            self.heading = None if self.heading.close(name) else self.heading
        elif name in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif name in _BLOCKS:
            self.out.breaks(1)
        elif name in _PARAGRAPHS:
            self.out.breaks(2)

    def start(self, name: str, attribute_text: str) -> bool:
        """Read a start tag; False when everything from it on is the original message."""
        if self.skipped is not None:
            self.skipped.open(name)
            return True
        if self.heading is not None:
            # Only a quote of the wrapper's own (its child) ends its head: one deeper is in a message
            # the wrapper holds unquoted (a forward), whose every line is left out.
            if len(self.heading.names) > 1 or not _is_quote_container(name, _attributes(attribute_text)):
                self.heading.open(name)
                return True
            self.heading = None
        if name in _HIDDEN:
            self.hidden += 1
            return True
        if name in _RAW_TEXT:
            return True
        attributes = _attributes(attribute_text) if attribute_text.strip() else {}
        if self.strip_quotes and not self._quote(name, attributes):
            return False
        if name == "br":
            self.out.line_break()
        elif name in _BLOCKS or name == "hr":
            self.out.breaks(1)
        elif name in _PARAGRAPHS:
            self.out.breaks(2)
        return True

    def _quote(self, name: str, attributes: dict[str, str]) -> bool:
        """Mark or leave out what starts a quote; False at Outlook's reply header."""
        if _starts_outlook_header(name, attributes):
            return False
        container = _is_quote_container(name, attributes)
        if container or _is_quote_wrapper(name, attributes):
            self.out.marker(QUOTE_MARK)
            if name not in _VOID:
                if container:
                    self.skipped = _Subtree(name)
                else:
                    self.heading = _Subtree(name)
            return True
        if _has_top_rule(name, attributes):
            self.out.marker(RULE_MARK)
        return True


def html_to_text(html: str, *, strip_quotes: bool = False) -> str:
    """Readable text of an HTML body; with `strip_quotes`, quote containers become marker lines."""
    reader = _Reader(strip_quotes)
    for kind, name, attribute_text in _tokens(html):
        if kind == "text":
            reader.text(name)
        elif kind == "end":
            reader.end(name)
        elif not reader.start(name, attribute_text):
            break
    return tidy([line.strip() for line in "".join(reader.out.parts).split("\n")])


def tidy(lines: list[str]) -> str:
    """No leading or trailing blank lines, and at most one blank line in a row."""
    kept: list[str] = []
    for line in lines:
        if not line.strip():
            if kept and kept[-1]:
                kept.append("")
            continue
        kept.append(line)
    while kept and not kept[-1]:
        kept.pop()
    return "\n".join(kept)
