"""Reading the OpenAPI document in the API tests: its operations, one by its id, one query parameter."""

from __future__ import annotations

from typing import Any

Document = dict[str, Any]


def operations(spec: Document) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, item in spec["paths"].items() for method, op in item.items()]


def by_id(spec: Document, operation_id: str) -> dict[str, Any]:
    [found] = [op for _path, _method, op in operations(spec) if op["operationId"] == operation_id]
    return found


def query(operation: dict[str, Any], name: str) -> dict[str, Any]:
    [parameter] = [p for p in operation["parameters"] if p["in"] == "query" and p["name"] == name]
    return parameter
