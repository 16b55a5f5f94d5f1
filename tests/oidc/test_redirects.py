"""The redirect allow list is matched on parsed URLs (app.oidc.redirects)."""

from __future__ import annotations

import pytest

from app.oidc.redirects import is_allowed, with_params

ALLOWED = ["https://app.example.com/", "https://spa.example.com/auth", "http://localhost:3000/cb"]


@pytest.mark.parametrize(
    "redirect",
    [
        "https://app.example.com/",
        "https://app.example.com/deep/page?tab=2",
        "https://spa.example.com/auth",
        "https://spa.example.com/auth/done",
        "http://localhost:3000/cb",
        "https://APP.example.com/",
    ],
)
def test_urls_under_an_entry_are_allowed(redirect: str) -> None:
    assert is_allowed(redirect, ALLOWED)


@pytest.mark.parametrize(
    "redirect",
    [
        "https://app.example.com.evil.test/",
        "https://app.example.com@evil.test/",
        "https://evil.test@app.example.com/",
        "https://app.example.com:444/",
        "http://app.example.com/",
        "https://spa.example.com/authority",
        "https://spa.example.com/",
        "http://localhost:3000/cb2",
        "https://app.example.com\\@evil.test/",
        "https://app.example.com/\nLocation: x",
        "//app.example.com/",
        "javascript:alert(1)//https://app.example.com/",
        "https://app.example.com:bad/",
        "",
    ],
)
def test_prefix_tricks_are_refused(redirect: str) -> None:
    assert not is_allowed(redirect, ALLOWED)


def test_nothing_is_allowed_without_entries() -> None:
    assert not is_allowed("https://app.example.com/", [])


def test_params_go_into_the_query_before_the_fragment() -> None:
    assert with_params("https://app.example.com/cb?a=1&code=old#/x", code="new") == (
        "https://app.example.com/cb?a=1&code=new#/x"
    )
