"""Parsing and rendering a saved reply's placeholders: known names only, spaces inside the braces, an
unclosed `{{` refused, values inserted as text, linear time on hostile bodies."""

from __future__ import annotations

import contextlib
import time

import pytest

from app.replies.placeholders import NAMES, PlaceholderError, check, render

VALUES = {name: f"<{name}>" for name in NAMES}


def test_every_known_name_renders_and_spaces_inside_the_braces_are_allowed() -> None:
    body = " ".join(f"{{{{{name}}}}}" for name in NAMES) + " {{ claim.id }} {{\tagent.name\n}}"
    assert check(body) == body
    expected = " ".join(f"<{name}>" for name in NAMES) + " <claim.id> <agent.name>"
    assert render(body, VALUES) == expected


def test_text_without_placeholders_and_single_braces_stay_as_they_are() -> None:
    body = "Hello {name}, see {{claim.id}}; } { }} alone"
    assert render(body, VALUES) == "Hello {name}, see <claim.id>; } { }} alone"


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ("Hi {{customer.email}}", "unknown placeholder {{customer.email}}"),
        ("Hi {{}}", "unknown placeholder {{}}"),
        ("{{{claim.id}}}", "unknown placeholder {{{claim.id}}"),
        ("Hi {{ Customer.Name }}", "unknown placeholder {{Customer.Name}}"),
        ("ok {{claim.id}} then {{claim.id", "the {{ at character 22 is never closed"),
    ],
)
def test_an_unknown_or_unclosed_placeholder_is_named(body: str, named: str) -> None:
    with pytest.raises(PlaceholderError) as raised:
        check(body)
    assert str(raised.value) == named


def test_a_long_unknown_name_is_shortened_in_the_error() -> None:
    with pytest.raises(PlaceholderError) as raised:
        check("{{" + "x" * 5000 + "}}")
    assert len(str(raised.value)) < 100


def test_values_are_inserted_as_text_and_never_read_again() -> None:
    values = {**VALUES, "product.name": "{{claim.id}} <b>bold</b> {{"}
    assert render("{{product.name}} / {{claim.id}}", values) == "{{claim.id}} <b>bold</b> {{ / <claim.id>"


def test_a_missing_value_renders_empty() -> None:
    assert render("RMA: [{{claim.rma}}]", {}) == "RMA: []"


@pytest.mark.parametrize(
    "body",
    [
        "{{" * 5000,
        "{{ " + " " * 9990 + "}",
        "{{claim.id}}" * 833,
        "{{a}" * 2500,
        "{" * 10_000,
        "}}" * 5000,
    ],
)
def test_hostile_bodies_of_ten_thousand_characters_take_linear_time(body: str) -> None:
    started = time.perf_counter()
    for _ in range(20):
        with contextlib.suppress(PlaceholderError):
            render(body, VALUES)
    assert time.perf_counter() - started < 0.5  # 20 passes; a quadratic scan takes seconds
