"""Email templates (app/notifications/render.py): the text part under the reply marker with the values as
given, the HTML part in the layout with every value, the subject and the marker HTML-escaped, and a
template missing a value refused rather than sent with a hole."""

from __future__ import annotations

import pytest

from app.notifications.render import REPLY_MARKER, render

VALUES: dict[str, object] = {
    "claim_id": 42,
    "product": "Pump <P&Q>",
    "status": "Resolved",
    "outcome": "\nOutcome: Replaced\n",
    "outcome_lines": 'Note: "new" <seal>',
    "link": "https://app.example.com/claims/42?a=1&b=2",
}


def test_the_text_part_starts_with_the_reply_marker_and_holds_the_values_as_given() -> None:
    text, _html = render("claim_status", "Your claim #42", **VALUES)

    assert text.startswith(f"{REPLY_MARKER}\n\n")
    assert text.splitlines()[2] == "Your claim #42 for Pump <P&Q> is now: Resolved."
    assert "Outcome: Replaced" in text and "View the claim: https://app.example.com/claims/42?a=1&b=2" in text


def test_the_html_part_escapes_every_value_the_subject_and_the_marker() -> None:
    _text, html = render("claim_status", "Claim <42> & more", **VALUES)

    assert html.startswith("<!doctype html>")
    assert "<title>Claim &lt;42&gt; &amp; more</title>" in html
    assert html.count(REPLY_MARKER) == 1
    assert "<strong>Pump &lt;P&amp;Q&gt;</strong>" in html and "<P&Q>" not in html
    assert "Note: &quot;new&quot; &lt;seal&gt;" in html
    assert '<a href="https://app.example.com/claims/42?a=1&amp;b=2">' in html
    assert "This is an automatic message from Warranty." in html


NAMES = (
    "attachment_line", "body", "claim_id", "days_left", "expires_on", "link", "name", "outcome",
    "outcome_lines", "product", "sender", "status", "valid_for",
)  # fmt: skip


@pytest.mark.parametrize("template", ["claim_message", "claim_status", "expiry_alert", "password_reset"])
def test_every_template_fills_both_parts_and_refuses_a_missing_value(template: str) -> None:
    with pytest.raises(KeyError):
        render(template, "Subject")

    text, html = render(template, "Subject", **{name: f"<{name}>" for name in NAMES})

    assert "$" not in text and "$" not in html  # no placeholder left unfilled
    used = [name for name in NAMES if f"<{name}>" in text]
    assert used  # the text part says what it was given, as given...
    for name in used:
        assert f"<{name}>" not in html  # ...and the HTML part escaped
