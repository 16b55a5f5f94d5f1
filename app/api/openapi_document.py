"""The OpenAPI document as a contract clients are generated from (openapi-typescript, openapi-fetch, ...).

FastAPI's document is refined in one place, after it is built, so routers stay as they are:
- short operationIds (`listClaims`, not `list_claims_api_claims_get`): `operation_id`;
- what the routes validate by hand, stated in the schema: `page` and `limit` are integers with their
  bounds, `sort` and `order` are enums, the hub's `topic` is required (1 to 50);
- a 400 on every operation with an integer path id (a non-integer id is a 400 VALIDATION_FAILED);
- the media types of file downloads, the empty 202 of `POST /api/password/forgot`;
- `format: email` on the email fields of request bodies;
- no U+0000 in any free-text string, in bodies and in path and query parameters (both are refused);
- the credentials: the hub's three (header, `authorization` query parameter, cookie) and the inbound
  webhooks' signatures and payload formats (app.api.openapi_inbound);
- an example on every request body and success response that has none (app.api.openapi_examples).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi.routing import APIRoute

from app.api.openapi_examples import add_examples
from app.api.openapi_inbound import document_hub, document_inbound
from app.api.schemas import RequestModel

ERROR_REF = {"$ref": "#/components/schemas/ErrorBody"}
PAGE = {
    "type": "integer",
    "minimum": 1,
    "default": 1,
    "description": "1-based page; with `limit`, the envelope",
}
LIMIT = {
    "type": "integer",
    "minimum": 1,
    "maximum": 100,
    "default": 20,
    "description": "Items per page, 1..100 (lowered to the role's maximum: 50 below admin)",
}
ORDER = {"type": "string", "enum": ["asc", "desc"], "default": "desc"}
# `sort` values per list, by operationId (the lists that take one).
SORTS = {
    "listProducts": ["name", "brand", "purchaseDate", "warrantyExpiresAt", "createdAt"],
    "adminListProducts": ["name", "brand", "purchaseDate", "warrantyExpiresAt", "createdAt"],
    "exportProducts": ["name", "brand", "purchaseDate", "warrantyExpiresAt", "createdAt"],
}
# File downloads: what their bytes may be.
IMAGES = ["image/jpeg", "image/png", "image/gif", "image/webp"]
DOWNLOADS = {
    "downloadAttachment": [*IMAGES, "application/pdf"],
    "downloadReceipt": ["application/pdf", "image/jpeg", "image/png", "image/webp"],
    "getProfilePicture": IMAGES,
    "downloadRmaLabel": ["application/pdf"],
}
EMPTY_SUCCESS = {"forgotPassword": ("202", "Accepted, whether or not an account has this email (no body).")}


def operation_id(route: APIRoute) -> str:
    """The route function's name in camelCase: `list_claims` -> `listClaims` (FastAPI warns on a duplicate,
    and the test suite turns warnings into failures)."""
    head, *rest = route.name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, item in schema.get("paths", {}).items()
        for method, operation in item.items()
        if isinstance(operation, dict) and "responses" in operation
    ]


def _query_parameters(operation_id_: str, operation: dict[str, Any]) -> None:
    for parameter in operation.get("parameters", []):
        if parameter.get("in") != "query":
            continue
        name = parameter["name"]
        fixed: dict[str, dict[str, Any]] = {"page": PAGE, "limit": LIMIT, "order": ORDER}
        replacement = fixed.get(name)
        if name == "sort" and operation_id_ in SORTS:
            replacement = {"type": "string", "enum": SORTS[operation_id_], "default": "createdAt"}
        if replacement is not None:
            parameter["schema"] = dict(replacement)
            parameter.setdefault("description", replacement.get("description", ""))


def _no_nul_parameters(operation: dict[str, Any]) -> None:
    """Every path and query is refused with 400 when it holds U+0000 (the middleware, before routing):
    stated on each free-text parameter, as on request bodies."""
    for parameter in operation.get("parameters", []):
        if parameter.get("in") not in {"query", "path"}:
            continue
        schema = parameter.get("schema", {})
        for variant in [schema, *schema.get("anyOf", [])]:
            if variant.get("type") == "string" and not {"enum", "pattern", "const", "format"} & set(variant):
                variant["pattern"] = NO_NUL


def _integer_path(operation: dict[str, Any]) -> bool:
    return any(
        parameter.get("in") == "path" and parameter.get("schema", {}).get("type") == "integer"
        for parameter in operation.get("parameters", [])
    )


def _bad_request(operation: dict[str, Any]) -> None:
    """A path id that is not an integer is a 400 VALIDATION_FAILED, like any other bad input."""
    if "400" in operation["responses"] or not _integer_path(operation):
        return
    example = {
        "error": "ValidationError",
        "message": "Invalid input: id: not an integer",
        "code": "VALIDATION_FAILED",
    }
    operation["responses"]["400"] = {
        "description": "ValidationError",
        "content": {"application/json": {"schema": ERROR_REF, "example": example}},
    }


def _downloads(operation_id_: str, operation: dict[str, Any]) -> None:
    types = DOWNLOADS.get(operation_id_)
    if types is not None:
        binary = {"schema": {"type": "string", "format": "binary"}}
        ok = operation["responses"]["200"]
        ok["content"] = {media_type: dict(binary) for media_type in types}
        ok.setdefault("headers", {})["Content-Disposition"] = {
            "description": "`attachment`, with the file's name",
            "schema": {"type": "string"},
        }
    if operation_id_ in EMPTY_SUCCESS:
        status, description = EMPTY_SUCCESS[operation_id_]
        operation["responses"][status] = {"description": description}


def _request_schema_names(schema: dict[str, Any]) -> set[str]:
    names = set()
    for _path, _method, operation in _operations(schema):
        for media in operation.get("requestBody", {}).get("content", {}).values():
            ref = media.get("schema", {}).get("$ref", "")
            if ref.startswith("#/components/schemas/"):
                names.add(ref.rsplit("/", 1)[1])
    return names


def _emails(schema: dict[str, Any]) -> None:
    """`format: email` on the email fields of request bodies (responses echo stored, already checked ones)."""
    for definition in _request_email_fields(schema):
        for variant in [definition, *definition.get("anyOf", [])]:
            if variant.get("type") == "string":
                variant["format"] = "email"


def _request_email_fields(schema: dict[str, Any]) -> Iterator[dict[str, Any]]:
    components = schema.get("components", {}).get("schemas", {})
    for name in _request_schema_names(schema):
        for field, definition in components.get(name, {}).get("properties", {}).items():
            if field.lower().endswith("email"):
                yield definition


NO_NUL = "^[^\\u0000]*$"  # RequestModel refuses U+0000 in every string
# ... and strips whitespace first, so a required text needs one character that is not whitespace.
NO_NUL_NOT_BLANK = "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"


def _request_models() -> set[str]:
    found, todo = set(), list(RequestModel.__subclasses__())
    while todo:
        model = todo.pop()
        found.add(model.__name__)
        todo.extend(model.__subclasses__())
    return found


def _no_nul(schema: dict[str, Any]) -> None:
    """The rule every request model enforces, stated: its free-text strings match `NO_NUL`."""
    components = schema.get("components", {}).get("schemas", {})
    for name in set(components) & _request_models():
        for field, definition in components.get(name, {}).get("properties", {}).items():
            stripped = "password" not in field.lower()  # passwords are taken as typed (Password)
            variants = [definition, *definition.get("anyOf", [])]
            variants += [variant["items"] for variant in variants if isinstance(variant.get("items"), dict)]
            for variant in variants:
                if variant.get("type") == "string" and not {"enum", "pattern", "const"} & set(variant):
                    required = stripped and variant.get("minLength", 0) >= 1
                    variant["pattern"] = NO_NUL_NOT_BLANK if required else NO_NUL


def refine(schema: dict[str, Any]) -> dict[str, Any]:
    """The document FastAPI built, made exact (see the module docstring). Runs once, when first served."""
    for _path, _method, operation in _operations(schema):
        op_id = operation.get("operationId", "")
        _query_parameters(op_id, operation)
        _no_nul_parameters(operation)
        _bad_request(operation)
        _downloads(op_id, operation)
    _emails(schema)
    _no_nul(schema)
    document_hub(schema)
    document_inbound(schema)
    add_examples(schema)
    return schema
