"""Examples for the OpenAPI document: every JSON request body and success response without one gets an
example built from its schema. A property's own `examples` (pydantic `Field(examples=[...])`) win; other
values come from the field's name and format, so what an integrator reads looks like real data."""

from __future__ import annotations

from typing import Any

_BY_NAME: dict[str, Any] = {
    "email": "ann@example.com",
    "customerEmail": "ann@example.com",
    "password": "correct-horse-battery",
    "currentPassword": "correct-horse-battery",
    "newPassword": "staple-battery-horse",
    "name": "Espresso machine",
    "brand": "Gaggia",
    "category": "Kitchen",
    "store": "Coffee Corner",
    "serialNumber": "GX-2931-77",
    "description": "The pump is loud and the water stays cold.",
    "message": "The replacement part is on its way.",
    "body": "The replacement part is on its way.",
    "productName": "Espresso machine",
    "productBrand": "Gaggia",
    "senderName": "Sam Supplier",
    "customerName": "Ann Example",
    "fileName": "receipt.pdf",
    "filename": "receipt.pdf",
    "fileType": "pdf",
    "mimeType": "application/pdf",
    "dataUrl": "data:application/pdf;base64,JVBERi0xLjQKJcfs",
    "token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJl",
    "refreshToken": "rt_9f2c1d0e7b6a45c3a1e8d2f4b6c8e0a2",
    "url": "/api/products/7/receipts/3/file",
    "street": "1 Main Street",
    "postalCode": "1000",
    "city": "Brussels",
    "country": "BE",
    "phone": "+32 2 123 45 67",
    "price": 199.99,
    "warrantyPeriodMonths": 24,
    "newWarrantyMonths": 12,
    "months": 12,
    "outcomeNote": "Replaced the pump; tested for an hour.",
    "size": 48213,
    "messageCount": 3,
    "lastError": "SMTPConnectError: Error connecting to mail.example.com",
    "reason": "resend_api_key_missing",
}
_BY_FORMAT = {
    "date": "2026-01-15",
    "date-time": "2026-01-15T10:00:00+00:00",
    "email": "ann@example.com",
    "uri": "https://example.com/",
    "binary": "(file bytes)",
}
_DEPTH = 8


def _resolve(schema: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        schema = document["components"]["schemas"][name]
    return schema


def _integer(name: str, schema: dict[str, Any]) -> int:
    value = 42 if name.lower().endswith("id") or name == "id" else 1
    value = max(value, schema.get("minimum", value))
    return min(value, schema.get("maximum", value))


def _string(name: str, schema: dict[str, Any]) -> str:
    if schema.get("format") in _BY_FORMAT:
        return str(_BY_FORMAT[schema["format"]])
    if name.endswith("At"):  # createdAt, readAt, ...: timestamps, whatever their schema says
        return str(_BY_FORMAT["date-time"])
    if name.endswith(("On", "Date")):
        return str(_BY_FORMAT["date"])
    value = str(_BY_NAME.get(name, name or "text"))
    return value[: schema["maxLength"]] if "maxLength" in schema else value


def example_of(schema: dict[str, Any], document: dict[str, Any], name: str = "", depth: int = 0) -> Any:
    """A value valid for `schema` (as far as the schema says), built from names and formats."""
    schema = _resolve(schema, document)
    for key in ("example", "default"):
        if key in schema and schema[key] is not None:
            return schema[key]
    if schema.get("examples"):
        return schema["examples"][0]
    if name in _BY_NAME and "enum" not in schema and "anyOf" not in schema:
        return _BY_NAME[name]
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = [option for option in schema[key] if _resolve(option, document).get("type") != "null"]
            return example_of(options[0], document, name, depth) if options else None
    if "allOf" in schema:
        return example_of(schema["allOf"][0], document, name, depth)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        if depth > _DEPTH:
            return {}
        properties = schema.get("properties", {})
        return {key: example_of(value, document, key, depth + 1) for key, value in properties.items()}
    if kind == "array":
        return [] if depth > _DEPTH else [example_of(schema.get("items", {}), document, name, depth + 1)]
    if kind == "integer":
        return _integer(name, schema)
    if kind == "number":
        return float(schema.get("minimum", 0)) + 1.5
    if kind == "boolean":
        return True
    if kind == "string":
        return _string(name, schema)
    return None


def _media_needing_example(operation: dict[str, Any]) -> list[dict[str, Any]]:
    media = list(operation.get("requestBody", {}).get("content", {}).values())
    for status, response in operation.get("responses", {}).items():
        if str(status).startswith("2"):
            media.extend(response.get("content", {}).values())
    return [item for item in media if "schema" in item and "example" not in item and "examples" not in item]


def add_examples(document: dict[str, Any]) -> None:
    for item in document.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for media in _media_needing_example(operation):
                if media["schema"].get("format") == "binary":
                    continue
                media["example"] = example_of(media["schema"], document)
