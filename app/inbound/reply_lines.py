"""What a line of an email is, by its shape: a quote, a delimiter, a footer, a header, part of an attribution.

Every pattern here is anchored and bounded (no nested or overlapping open-ended repetition), and is only
tried on lines of at most `MAX_SHAPED_LINE` characters: a longer line is the writer's text. So each line
costs time proportional to its length, whatever it holds.
"""

from __future__ import annotations

import re

MAX_SHAPED_LINE = 300

# Dates and times as mail programs write them in attributions and header blocks, in any language.
_TIME = re.compile(r"(?<!\d)\d{1,2}\s?[:h.]\s?\d{2}(?!\d)|(?<!\d)\d{1,2}\s?[ap]\.?m\b", re.IGNORECASE)
_CLOCK = re.compile(r"(?<!\d)\d{1,2}:\d{2}(?!\d)")  # header blocks: "Sent: Monday, ... 5:44 PM"
_DATE = re.compile(r"(?<!\d)(?:1[89]|20)\d{2}(?!\d)|(?<!\d)\d{1,2}[./-]\d{1,2}[./-]\d{2,4}(?!\d)")
_DIGIT = re.compile(r"\d")
_ADDRESS = re.compile(r"[\w.+-]@[\w-]{1,63}\.\w|mailto:")
# The verb of an attribution in the languages mail programs ship ("Ann wrote:"); one signal among others.
_WROTE_WORDS = (
    "wrote", "writes", "schrieb", "écrit", "escribió", "scritto", "schreef", "geschreven", "skrev",
    "napisał", "написал", "пише", "escreveu", "viết", "写道", "寫道", "kirjoitti", "írta", "yazd\u0131",
    "napsal", "έγραψε", "a scris", "kirjutas", "rašė", "rakstīja", "napisao", "написа", "כתב", "كتب",
)  # fmt: skip
_LABEL = re.compile(r"\*{0,2}([^\W\d_][\w'. -]{0,30}?)\*{0,2}\s?[:\uff1a]\*{0,2}(?:\s|$)")
_DELIMITER_CHARS = set("-_=*~#+\u2014\u2013")
_TITLED_SEPARATOR = re.compile(r"[-_=*]{2,}\s?([^\W\d_][^-_=*]{2,60}?)\s?[-_=*]{2,}:?")
_FORWARD_WORDS = (
    "forward", "weitergeleitet", "transféré", "transfere", "reenviado", "inoltrato", "doorgestuurd",
    "videresendt", "vidarebefordrat", "przekazana", "пересылаемое", "encaminhada", "转发", "轉寄",
)  # fmt: skip
_BEGIN_FORWARD = re.compile(r"(?:begin forwarded message|anfang der weitergeleiteten nachricht)\s?:?")
_DEVICE = r"[\w\-.&+/ ]{1,60}"
_FOOTER = re.compile(
    r"[(<\[]{0,2}(?:"
    rf"sent (?:\w{{1,15}} )?(?:from|with|via|using) (?:my )?{_DEVICE}"
    r"|get \[?outlook for [\w\]() ]{1,30}"
    rf"|envoy[ée] (?:\w{{1,10}} ){{0,3}}(?:de|depuis|par|à partir de|avec) (?:mon |ma |un )?{_DEVICE}"
    rf"|von meinem {_DEVICE} gesendet|gesendet (?:von|mit|vom) (?:meinem )?{_DEVICE}"
    r"|diese nachricht wurde von meinem .{1,80} gesendet"
    rf"|enviado (?:desde|do|de|con) (?:mi |meu |o meu |el |o )?{_DEVICE}"
    rf"|inviato (?:da|con) (?:il |mio |dal mio |da mio )?{_DEVICE}"
    rf"|(?:verzonden|verstuurd) (?:met|vanaf|van|vanuit) (?:mijn )?{_DEVICE}"
    rf"|sendt fra (?:min )?{_DEVICE}|skickat från (?:min )?{_DEVICE}|lähetetty {_DEVICE}"
    rf"|wysłane z {_DEVICE}|отправлено (?:\u0441|из) {_DEVICE}|надіслано з {_DEVICE}"
    r"|從我的 ?\S{1,30} ?傳送|发自我的 ?\S{1,30}|iPhoneから送信|iPadから送信"
    r")[)>\]]{0,2}[.!]?(?: ?<[^>\s]{1,200}>| ?\(\S{1,200}\))?",
    re.IGNORECASE,
)


def is_quote(stripped: str) -> bool:
    """`> text`, Gmail's old `| text`, or Supercite's initials `AB> text`."""
    if stripped.startswith(">"):
        return True
    if stripped.startswith("|"):
        return len(stripped) == 1 or not stripped.endswith("|")  # "| a | b |" is a table row
    head = stripped[:4]
    marker = head.find(">")
    return 0 < marker <= 3 and head[:marker].isascii() and head[:marker].isalpha()


def is_delimiter(stripped: str) -> bool:
    """A line of dashes, underscores, equal signs...: what separates a signature or a footer."""
    if not stripped or stripped[0] not in _DELIMITER_CHARS:
        return False
    return (len(stripped) >= 2 and set(stripped) <= _DELIMITER_CHARS) or stripped in ("\u2014", "\u2013")


def titled_separator(stripped: str) -> str | None:
    """The title of a line like `-----Original Message-----`, or None."""
    if len(stripped) > MAX_SHAPED_LINE:
        return None
    match = _TITLED_SEPARATOR.fullmatch(stripped)
    return match.group(1).strip().lower() if match else None


def is_forward_marker(stripped: str) -> bool:
    """`-------- Forwarded message --------` (in several languages) or Apple Mail's `Begin forwarded...`."""
    title = titled_separator(stripped)
    if title is not None:
        return any(word in title for word in _FORWARD_WORDS)
    return len(stripped) < 60 and bool(_BEGIN_FORWARD.fullmatch(stripped.lower()))


def is_footer(stripped: str) -> bool:
    """A mobile or desktop mail program's footer ("Sent from my iPhone", "Envoyé depuis mon iPhone")."""
    return len(stripped) <= 160 and bool(_FOOTER.fullmatch(stripped))


def label_of(stripped: str) -> str | None:
    """The label of a `Label: value` header line (at most three words), or None."""
    if len(stripped) > MAX_SHAPED_LINE:
        return None
    match = _LABEL.match(stripped)
    if match is None:
        return None
    label = match.group(1).strip()
    return label if len(label.split()) <= 3 else None


def has_time(text: str) -> bool:
    return ":" in text and bool(_CLOCK.search(text))


def has_date(text: str) -> bool:
    return bool(_DIGIT.search(text)) and bool(_TIME.search(text) or _DATE.search(text))


def has_address(text: str) -> bool:
    return ("@" in text or ":" in text) and bool(_ADDRESS.search(text))


def has_wrote_word(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in _WROTE_WORDS)


def ends_sentence(stripped: str) -> bool:
    """Whether a line ends a sentence: "!" or "?", or "." after a word longer than an abbreviation."""
    if stripped.endswith(("!", "?")):
        return True
    if not stripped.endswith("."):
        return False
    last_word = stripped.rsplit(" ", 1)[-1]
    return len(last_word) > 6
