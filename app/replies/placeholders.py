"""The placeholders of a saved reply (contract 17.9, docs/api.md "Saved replies"): `{{name}}` with one of
the names below, spaces inside the braces allowed (`{{ customer.name }}`). A body is read once, left to
right, with `str.find` only: linear in its length whatever it holds (no regular expression that could
backtrack on a hostile body). Rendering inserts each value as plain text and never reads it again, so a
value that looks like a placeholder (a product named `{{claim.id}}`) stays as it is."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

NAMES = (
    "customer.name",
    "product.name",
    "product.brand",
    "product.serialNumber",
    "claim.id",
    "claim.rma",
    "agent.name",
)
OPEN, CLOSE = "{{", "}}"
SHOWN = 60  # characters of an unknown placeholder quoted back in the error


class PlaceholderError(ValueError):
    """What is wrong with a body's placeholders, in words (the field error of `body`)."""


@dataclass(frozen=True)
class Text:
    value: str


@dataclass(frozen=True)
class Placeholder:
    name: str


def _pieces(body: str) -> Iterator[Text | Placeholder]:
    """The body as text and placeholders. PlaceholderError for a `{{` with no `}}` after it and for a
    name that is not one of NAMES, naming it."""
    position = 0
    while True:
        start = body.find(OPEN, position)
        if start < 0:
            yield Text(body[position:])
            return
        end = body.find(CLOSE, start + len(OPEN))
        if end < 0:
            raise PlaceholderError(f"the {OPEN} at character {start + 1} is never closed")
        name = body[start + len(OPEN) : end].strip()
        if name not in NAMES:
            raise PlaceholderError(f"unknown placeholder {_quoted(name)}")
        yield Text(body[position:start])
        yield Placeholder(name)
        position = end + len(CLOSE)


def _quoted(name: str) -> str:
    shown = name if len(name) <= SHOWN else name[: SHOWN - 1] + "…"
    return f"{OPEN}{shown}{CLOSE}"


def check(body: str) -> str:
    """The body, when every placeholder in it is known (else PlaceholderError)."""
    for _ in _pieces(body):
        pass
    return body


def render(body: str, values: Mapping[str, str]) -> str:
    """The body with each placeholder replaced by its value as plain text (a missing value: empty)."""
    return "".join(
        piece.value if isinstance(piece, Text) else values.get(piece.name, "") for piece in _pieces(body)
    )
