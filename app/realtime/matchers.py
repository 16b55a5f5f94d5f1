"""Topic matchers of published updates (contract 20): which topics a subscription selects, and which a
token grants.

- `Exact`: a byte-for-byte comparison (the draft's `match`, `matchExact`, and a `topic` without `{`).
- `URLPattern`: a WHATWG URL Pattern (`matchURLPattern`, `match_urlpattern`), compiled by the `urlpattern`
  package (denoland's rust-urlpattern), whose regular expressions run on Rust's `regex` crate: matching
  time is linear in the topic, whatever the pattern. Relative patterns and topics resolve against the
  hub's URL. Patterns are at most MAX_MATCHER characters; one that does not compile is refused.
- `Template`: the released protocol's URI templates (RFC 6570) in `topic` and in `mercure.subscribe`/
  `mercure.publish` claims. An expression matches any run of characters its expansion could produce
  (`{var}`: no `/`, `?` or `#`; `{+var}` and `{#var}`: anything; `{/var}`: no `?` or `#`; `{?var}` and
  `{&var}`: no `#`). Matched by a bit-parallel automaton: linear in the topic, never backtracking.
- `*` matches every topic, whatever the type.

Compiled matchers are cached (one object for every subscriber with the same matcher), so fan-out tests
each distinct matcher once per update.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from urlpattern import URLPattern

WILDCARD = "*"
MAX_MATCHER = 1024  # characters of one matcher
EXACT = "Exact"
URL_PATTERN = "URLPattern"
TEMPLATE = "Template"
KINDS = (EXACT, URL_PATTERN, TEMPLATE)
HUB_PATH = "/.well-known/mercure"

# C0, DEL and C1 controls: never in a topic nor in a matcher (the draft's rule for both).
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")
_EXPRESSION = re.compile(r"\{([+#./;?&]?)[A-Za-z0-9_.%,:*]*\}")
# What each RFC 6570 operator's expansion may not contain (None: anything).
_EXCLUDED = {"": "/?#", ".": "/?#", ";": "/?#", "+": "", "#": "", "/": "?#", "?": "#", "&": "#"}


class InvalidMatcher(ValueError):
    pass


class Matcher(Protocol):
    def matches(self, topic: str) -> bool: ...


def has_controls(value: str) -> bool:
    return _CONTROLS.search(value) is not None


@dataclass(frozen=True)
class Everything:
    def matches(self, topic: str) -> bool:
        return True


@dataclass(frozen=True)
class Exact:
    value: str

    def matches(self, topic: str) -> bool:
        return topic == self.value


class Pattern:
    """A URL Pattern; a topic it cannot read as a URL does not match."""

    __slots__ = ("_base", "_pattern")

    def __init__(self, value: str, base: str) -> None:
        self._base = base
        try:
            self._pattern = URLPattern(value, base)
        except (ValueError, TypeError) as error:
            raise InvalidMatcher(f"not a URL pattern: {error}") from None

    def matches(self, topic: str) -> bool:
        try:
            return bool(self._pattern.test(topic, self._base))
        except (ValueError, TypeError):
            return False


class Template:
    """A URI template as an automaton over the topic's characters: bit i of the state says "the first i
    pieces matched". A piece is a literal character, or a run of characters from an allowed set."""

    __slots__ = ("_accept", "_excluded", "_literals", "_runs")

    def __init__(self, value: str) -> None:
        pieces: list[str | frozenset[str]] = []  # a literal character, or a run's excluded characters
        position = 0
        for expression in _EXPRESSION.finditer(value):
            pieces.extend(value[position : expression.start()])
            excluded = frozenset(_EXCLUDED[expression.group(1)])
            if pieces and isinstance(pieces[-1], frozenset):  # two runs in a row are one run
                excluded = pieces.pop() & excluded  # type: ignore[operator]
            pieces.append(excluded)
            position = expression.end()
        pieces.extend(value[position:])
        if any(character in "{}" for character in pieces if isinstance(character, str)):
            raise InvalidMatcher("not a URI template: an unmatched or unsupported brace")
        self._literals: dict[str, int] = {}
        self._excluded: dict[str, int] = {}
        self._runs = 0
        for index, piece in enumerate(pieces):
            bit = 1 << index
            if isinstance(piece, str):
                self._literals[piece] = self._literals.get(piece, 0) | bit
            else:
                self._runs |= bit
                for character in piece:
                    self._excluded[character] = self._excluded.get(character, 0) | bit
        self._accept = 1 << len(pieces)

    def matches(self, topic: str) -> bool:
        runs = self._runs
        state = 1 | ((1 & runs) << 1)
        for character in topic:
            state = ((state & self._literals.get(character, 0)) << 1) | (
                state & runs & ~self._excluded.get(character, 0)
            )
            if not state:
                return False
            state |= (state & runs) << 1  # a run may end here (runs never follow each other)
        return bool(state & self._accept)


@lru_cache(maxsize=4096)
def compile_matcher(kind: str, value: str, base: str) -> Matcher:
    """The matcher of `kind` for `value` (`base`: the hub's URL, for relative URL patterns); raises
    InvalidMatcher for one too long, with controls, or that does not compile."""
    if len(value) > MAX_MATCHER:
        raise InvalidMatcher(f"at most {MAX_MATCHER} characters")
    if has_controls(value):
        raise InvalidMatcher("no control characters")
    if value == WILDCARD:
        return Everything()
    if kind == URL_PATTERN:
        return Pattern(value, base)
    if kind == TEMPLATE and "{" in value:
        return Template(value)
    return Exact(value)


def any_matches(matchers: tuple[Matcher, ...], topic: str) -> bool:
    return any(matcher.matches(topic) for matcher in matchers)
