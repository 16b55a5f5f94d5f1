"""Email templates (package data beside this module): `string.Template` files, with every value
HTML-escaped in the HTML part. Deliberately tiny: no logic in templates, so nothing to escape by hand."""

from __future__ import annotations

import html
from functools import cache
from importlib import resources
from string import Template


@cache
def _template(name: str) -> Template:
    return Template((resources.files("app.notifications") / "templates" / name).read_text("utf-8"))


# Above the text of every email, in both parts: a reply that quotes one of our emails is cut there
# (app/inbound/reply.py), whatever the replier's mail program does with quotes.
REPLY_MARKER = "-- Reply above this line --"


def render(template: str, subject: str, **values: object) -> tuple[str, str]:
    """The text and HTML parts of `template` (files `template.txt` and `template.html`)."""
    plain = {key: str(value) for key, value in values.items()}
    text = f"{REPLY_MARKER}\n\n" + _template(f"{template}.txt").substitute(plain)
    escaped = {key: html.escape(value) for key, value in plain.items()}
    content = _template(f"{template}.html").substitute(escaped)
    page = _template("layout.html").substitute(
        subject=html.escape(subject), content=content, marker=html.escape(REPLY_MARKER)
    )
    return text, page
