"""Topic matchers (app.realtime.matchers): exact, URL Pattern (relative to the hub, bounded time for a
hostile pattern), URI templates and `*`."""

from __future__ import annotations

import time

import pytest

from app.realtime.matchers import (
    EXACT,
    MAX_MATCHER,
    TEMPLATE,
    URL_PATTERN,
    Exact,
    InvalidMatcher,
    compile_matcher,
)

HUB = "https://hub.example/.well-known/mercure"


def test_exact_is_byte_for_byte_and_star_is_everything() -> None:
    exact = compile_matcher(EXACT, "https://example.com/caf\u00e9", HUB)
    assert exact.matches("https://example.com/caf\u00e9")
    assert not exact.matches("https://example.com/cafe\u0301")
    assert not exact.matches("https://EXAMPLE.com/caf\u00e9")
    for kind in (EXACT, URL_PATTERN, TEMPLATE):
        assert compile_matcher(kind, "*", HUB).matches("whatever")


def test_url_patterns_relative_to_the_hub() -> None:
    books = compile_matcher(URL_PATTERN, "https://example.com/books/:id", HUB)
    assert books.matches("https://example.com/books/1")
    assert not books.matches("https://example.com/books/1/pages")
    assert not books.matches("not a url at all")
    own = compile_matcher(URL_PATTERN, "/.well-known/mercure/subscriptions/:t", HUB)
    assert own.matches("/.well-known/mercure/subscriptions/a")
    assert own.matches("https://hub.example/.well-known/mercure/subscriptions/a")
    assert not own.matches("https://other.example/.well-known/mercure/subscriptions/a")


@pytest.mark.parametrize(
    ("template", "topic", "matches"),
    [
        ("https://example.net/foo/{random}", "https://example.net/foo/abc", True),
        ("https://example.net/foo/{random}", "https://example.net/foo/a/b", False),
        ("https://example.net/foo/{random}", "https://example.net/bar/abc", False),
        ("/books/{id}{+rest}", "/books/1/pages/2", True),
        ("/books/{id}.json", "/books/1.2.json", True),
        ("/a{/path}", "/a/b/c", True),
        ("/search{?q,page}", "/search?q=x&page=2", True),
        ("plain", "plain", True),
        ("plain", "plainer", False),
    ],
)
def test_uri_templates(template: str, topic: str, matches: bool) -> None:
    assert compile_matcher(TEMPLATE, template, HUB).matches(topic) is matches


def test_a_template_without_expressions_is_exact() -> None:
    assert compile_matcher(TEMPLATE, "a/b", HUB) == Exact("a/b")


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        (URL_PATTERN, "https://x/(a(?=b))"),  # lookahead: not a pattern the standard's engine takes
        (URL_PATTERN, "https://x/(unclosed"),
        (TEMPLATE, "/a/{b"),
        (EXACT, "a\x00b"),
        (URL_PATTERN, "/" + "a" * MAX_MATCHER),
    ],
)
def test_what_does_not_compile_is_refused(kind: str, value: str) -> None:
    with pytest.raises(InvalidMatcher):
        compile_matcher(kind, value, HUB)


def test_hostile_matchers_cost_bounded_time() -> None:
    """Patterns that backtrack exponentially in a backtracking engine, against a long non-matching topic."""
    pattern = compile_matcher(URL_PATTERN, "https://x/" + "(a*)*" * 20 + "b", HUB)
    template = compile_matcher(TEMPLATE, "{a}x" * 200 + "y", HUB)
    began = time.perf_counter()
    assert not pattern.matches("https://x/" + "a" * 4000)
    assert not template.matches("x" * 4000)
    assert time.perf_counter() - began < 1.0
