"""The new text of an email reply: quotes, quoted-message headers and signatures removed.

Text: lines starting with `>` are dropped; everything from the first quote header ("On ... wrote:" in
English, German, French, Spanish, Italian, Dutch, also wrapped over two lines; Outlook's "-----Original
Message-----", its underscore separator and "From: / Sent:" header blocks) or signature ("-- ", phone and
app footers) on is cut. HTML (used only when there is no text part): Gmail, Apple Mail, Thunderbird,
Yahoo and Outlook quote containers and every blockquote are skipped, Outlook's reply header ends the
reply, and what is left is converted to text and put through the text rules.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_WROTE = [
    r"On\b.{3,}\bwrote:",  # English
    r"Am\b.{3,}\bschrieb\b.*:",  # German ("Am ... schrieb Ann <a@b>:")
    r"Le\b.{3,}\ba\s+écrit\s*:",  # French
    r"El\b.{3,}\bescribió\s*:",  # Spanish
    r"Il\b.{3,}\bha\s+scritto\s*:",  # Italian
    r"Op\b.{3,}\bschreef\b.*:",  # Dutch
]
_WROTE_LINE = re.compile(rf"^\s*(?:{'|'.join(_WROTE)})\s*$", re.IGNORECASE)
_WROTE_START = re.compile(r"^\s*(?:On|Am|Le|El|Il|Op)\s", re.IGNORECASE)

_SEPARATOR = re.compile(
    r"^\s*(?:-{2,}\s*(?:Original Message|Ursprüngliche Nachricht|Message d'origine|Mensaje original"
    r"|Messaggio originale|Oorspronkelijk bericht|Forwarded message|Weitergeleitete Nachricht)\s*-{2,}"
    r"|_{20,}|Begin forwarded message:)\s*$",
    re.IGNORECASE,
)
_FROM_HEADER = re.compile(r"^\s*\*?(?:From|Von|De|Da|Van)\s*:\*?\s*\S", re.IGNORECASE)
_SENT_HEADER = re.compile(
    r"^\s*\*?(?:Sent|Date|Gesendet|Datum|Envoyé|Enviado|Fecha|Inviato|Data|Verzonden|Datum)\s*:\*?\s*\S",
    re.IGNORECASE,
)
# "From: Ann Sent: Monday ... To: ... Subject: ..." on one line (an HTML header block flattened).
_ONE_LINE_HEADER = re.compile(
    r"^\s*(?:From|Von|De|Van)\s*:.*\b(?:Sent|Gesendet|Envoyé|Enviado|Verzonden)\s*:"
)

_SIGNATURE = re.compile(r"^(?:--|-- )$")
_FOOTER = re.compile(
    r"^\s*(?:Sent from my \w[\w ]{0,40}|Sent from (?:Outlook|Mail|Yahoo Mail)\b.{0,60}"
    r"|Get Outlook for (?:iOS|Android)\b.{0,40}|Sent (?:with|via) \w[\w ]{0,40}"
    r"|Von meinem \w[\w ]{0,40} gesendet|Gesendet von meinem \w[\w ]{0,40}"
    r"|Envoyé de mon \w[\w ]{0,40}|Enviado desde mi \w[\w ]{0,40}"
    r"|Inviato da(?:l mio)? \w[\w ]{0,40}|Verstuurd vanaf mijn \w[\w ]{0,40})\s*[.!]?\s*$",
    re.IGNORECASE,
)
_HEADER_LOOKAHEAD = 4


def _is_attribution(line: str) -> bool:
    # A real attribution carries a date or time; "On Monday I wrote:" in a sentence does not.
    return bool(_WROTE_LINE.match(line)) and any(char.isdigit() for char in line)


def _ends_reply(lines: list[str], index: int) -> bool:
    line = lines[index]
    if _is_attribution(line) or _SEPARATOR.match(line) or _ONE_LINE_HEADER.match(line):
        return True
    if _SIGNATURE.match(line) or _FOOTER.match(line):
        return True
    following = lines[index + 1 : index + 1 + _HEADER_LOOKAHEAD]
    if _FROM_HEADER.match(line) and any(_SENT_HEADER.match(other) for other in following):
        return True
    # "On Mon, 5 Jan 2026 at 10:00, Ann <ann@example.com>\nwrote:" wrapped by the sender's client.
    return bool(
        _WROTE_START.match(line)
        and index + 1 < len(lines)
        and _is_attribution(f"{line.rstrip()} {lines[index + 1].strip()}")
    )


def reply_from_text(text: str) -> str:
    """The new part of a plain-text reply."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").replace("\xa0", " ").split("\n")
    kept: list[str] = []
    for index, line in enumerate(lines):
        if _ends_reply(lines, index):
            break
        if line.lstrip().startswith(">"):
            continue
        kept.append(line.rstrip())
    return _tidy(kept)


def _tidy(lines: list[str]) -> str:
    """No leading or trailing blank lines, and at most one blank line in a row."""
    tidy: list[str] = []
    for line in lines:
        if not line.strip():
            if tidy and tidy[-1]:
                tidy.append("")
            continue
        tidy.append(line)
    while tidy and not tidy[-1]:
        tidy.pop()
    return "\n".join(tidy)


_BLOCKS = {
    "address", "article", "aside", "dd", "div", "dl", "dt", "fieldset", "figure", "footer", "form",
    "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "pre", "section",
    "table", "tr", "ul",
}  # fmt: skip
_PARAGRAPHS = {"p"}
_INVISIBLE = {"head", "script", "style", "title", "template"}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# Containers whose content is a quote or a signature, never the reply.
_SKIP_CLASSES = {"gmail_quote", "gmail_quote_container", "gmail_signature", "yahoo_quoted", "moz-cite-prefix"}
# Elements that start the quoted message in Outlook: everything from them on is the original.
_STOP_IDS = {"divrplyfwdmsg", "appendonsend", "x_divrplyfwdmsg", "x_appendonsend"}


def _starts_outlook_quote(tag: str, attributes: dict[str, str]) -> bool:
    if attributes.get("id", "").lower() in _STOP_IDS:
        return True
    style = attributes.get("style", "").replace(" ", "").lower()
    # Outlook desktop: <div style="border:none;border-top:solid #E1E1E1 1.0pt;..."><p><b>From:</b> ...
    return tag == "div" and "border-top:solid" in style and "border:none" in style


class _ReplyHtml(HTMLParser):
    def __init__(self, strip_quotes: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.strip_quotes = strip_quotes
        self.parts: list[str] = []
        self.skip_stack: list[str] = []  # open tags of a skipped subtree (the first is its root)
        self.invisible = 0
        self.stopped = False

    def _skipping(self) -> bool:
        return self.stopped or bool(self.skip_stack) or self.invisible > 0

    def _newline(self, blank: bool = False) -> None:
        text = "".join(self.parts)
        if not text:
            return
        wanted = "\n\n" if blank else "\n"
        if not text.endswith(wanted):
            self.parts.append("\n" if text.endswith("\n") else wanted)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.stopped:
            return
        attributes = {name.lower(): (value or "") for name, value in attrs}
        if self.skip_stack:
            if tag not in _VOID:
                self.skip_stack.append(tag)
            return
        if tag in _INVISIBLE:
            self.invisible += 1
            return
        if self.strip_quotes:
            if _starts_outlook_quote(tag, attributes):
                self.stopped = True
                return
            classes = set(attributes.get("class", "").split())
            if tag == "blockquote" or classes & _SKIP_CLASSES or "gmail_signature" in attributes.values():
                self.skip_stack.append(tag)
                return
        if tag == "br":
            self.parts.append("\n")
        elif tag in _BLOCKS:
            self._newline()
        elif tag in _PARAGRAPHS:
            self._newline(blank=True)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.stopped:
            return
        if self.skip_stack:
            # Pop to the matching open tag (HTML in emails is often not well nested).
            if tag in self.skip_stack:
                while self.skip_stack and self.skip_stack.pop() != tag:
                    pass
            return
        if tag in _INVISIBLE:
            self.invisible = max(0, self.invisible - 1)
        elif tag in _BLOCKS:
            self._newline()
        elif tag in _PARAGRAPHS:
            self._newline(blank=True)

    def handle_data(self, data: str) -> None:
        if self._skipping():
            return
        self.parts.append(re.sub(r"[ \t\r\n\f]+", " ", data))


def html_to_text(html: str, *, strip_quotes: bool = False) -> str:
    """Readable text of an HTML body (stdlib html.parser); optionally without quoted sections."""
    parser = _ReplyHtml(strip_quotes)
    parser.feed(html)
    parser.close()
    lines = [line.replace("\xa0", " ").strip() for line in "".join(parser.parts).split("\n")]
    return _tidy(lines)


def reply_from_html(html: str) -> str:
    """The new part of an HTML-only reply."""
    return reply_from_text(html_to_text(html, strip_quotes=True))


def extract_reply(text: str, html: str) -> str:
    """The new reply text: from the text part when there is one, else from the HTML part."""
    if text.strip():
        return reply_from_text(text)
    if html.strip():
        return reply_from_html(html)
    return ""
