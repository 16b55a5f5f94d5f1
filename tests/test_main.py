"""Routers are matched in the order app.main.ROUTERS gives (the hottest first, for speed). That order may
change nothing a client sees: no path the service answers is matched by two operations of one method,
so whichever router is tried first, the same operation answers."""

from __future__ import annotations

import re
from typing import Any

from app.main import create_app

METHODS = ("get", "put", "post", "patch", "delete")


def _pattern(template: str, parameters: dict[str, Any]) -> re.Pattern[str]:
    """The paths a template matches: integer parameters are digits (with a sign, as the service reads
    them), others any one segment."""

    def segment(found: re.Match[str]) -> str:
        schema = parameters.get(found.group(1), {})
        return "-?[0-9]+" if schema.get("type") == "integer" else "[^/]+"

    return re.compile(re.sub(r"\\\{(\w+)\\\}", segment, re.escape(template)) + "$")


def _sample(template: str) -> str:
    return re.sub(r"\{\w+\}", "1", template)


def _operations() -> list[tuple[str, str, re.Pattern[str]]]:
    document = create_app().openapi()
    found = []
    for template, item in document["paths"].items():
        for method in METHODS:
            if method not in item:
                continue
            declared = [*item.get("parameters", []), *item[method].get("parameters", [])]
            parameters = {p["name"]: p.get("schema", {}) for p in declared if p.get("in") == "path"}
            found.append((method, template, _pattern(template, parameters)))
    return found


def test_no_path_is_answered_by_two_operations() -> None:
    operations = _operations()
    assert len(operations) > 60
    for method, template, _ in operations:
        sample = _sample(template)
        matching = [other for m, other, pattern in operations if m == method and pattern.match(sample)]
        assert matching == [template], (method, sample, matching)
