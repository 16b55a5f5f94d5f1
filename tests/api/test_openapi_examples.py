"""Examples in the OpenAPI document (app/api/openapi_examples.py): every JSON request body and success
response has one; a schema's own example wins, other values come from the field's name and format, within
the schema's bounds."""

from __future__ import annotations

from typing import Any

from app.api.openapi_examples import add_examples, example_of
from tests.api.support import Document, by_id, operations


def test_every_request_body_and_success_response_has_an_example(spec: Document) -> None:
    missing = []
    for path, method, operation in operations(spec):
        media = [("request", m) for m in operation.get("requestBody", {}).get("content", {}).values()]
        for status, response in operation["responses"].items():
            if status.startswith("2"):
                media += [(status, m) for m in response.get("content", {}).values()]
        for where, item in media:
            binary = item.get("schema", {}).get("format") == "binary"
            if not binary and "example" not in item and "examples" not in item:
                missing.append(f"{method.upper()} {path} {where}")
    assert missing == []
    example = by_id(spec, "getClaim")["responses"]["200"]["content"]["application/json"]["example"]
    assert example["status"] == "open" and example["createdAt"].endswith("+00:00")


DOCUMENT: Document = {
    "components": {
        "schemas": {
            "Claim": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "status": {"type": "string", "enum": ["open", "closed"]},
                    "email": {"type": "string"},
                    "note": {"type": "string", "examples": ["Its own example."]},
                    "createdAt": {"type": "string"},
                    "endsOn": {"type": "string"},
                    "site": {"type": "string", "format": "uri"},
                    "code": {"type": "string", "maxLength": 3},
                    "count": {"type": "integer", "minimum": 5, "maximum": 9},
                    "supplierId": {"anyOf": [{"type": "null"}, {"type": "integer", "maximum": 10}]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "flag": {"type": "boolean"},
                    "weight": {"type": "number", "minimum": 2},
                    "kind": {"const": "claim"},
                    "limit": {"type": "integer", "default": 20},
                },
            },
            "Nested": {"type": "object", "properties": {"inner": {"$ref": "#/components/schemas/Nested"}}},
        }
    }
}


def test_values_come_from_the_schema_the_name_and_the_format() -> None:
    example = example_of({"$ref": "#/components/schemas/Claim"}, DOCUMENT)

    assert example == {
        "id": 42,
        "status": "open",
        "email": "ann@example.com",
        "note": "Its own example.",
        "createdAt": "2026-01-15T10:00:00+00:00",
        "endsOn": "2026-01-15",
        "site": "https://example.com/",
        "code": "cod",
        "count": 5,
        "supplierId": 10,
        "tags": ["tags"],
        "flag": True,
        "weight": 3.5,
        "kind": "claim",
        "limit": 20,
    }


def test_a_schema_that_contains_itself_ends() -> None:
    example: Any = example_of({"$ref": "#/components/schemas/Nested"}, DOCUMENT)
    depth = 0
    while example:
        example, depth = example["inner"], depth + 1
    assert example == {} and 5 < depth < 20


def test_only_media_without_an_example_get_one() -> None:
    own = {"schema": {"type": "string"}, "example": "mine"}
    binary = {"schema": {"type": "string", "format": "binary"}}
    document: Document = {
        "paths": {
            "/x": {
                "post": {
                    "requestBody": {"content": {"application/json": {"schema": {"type": "boolean"}}}},
                    "responses": {
                        "200": {"content": {"application/json": own, "application/octet-stream": binary}},
                        "400": {"content": {"application/json": {"schema": {"type": "boolean"}}}},
                    },
                },
                "parameters": [],
            }
        }
    }

    add_examples(document)

    operation = document["paths"]["/x"]["post"]
    assert operation["requestBody"]["content"]["application/json"]["example"] is True
    assert own["example"] == "mine" and "example" not in binary
    assert "example" not in operation["responses"]["400"]["content"]["application/json"]  # errors: their own
