"""The error body in the OpenAPI document, with an example per status."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

_EXAMPLES: dict[int, tuple[str, str, str]] = {
    400: ("ValidationError", "VALIDATION_FAILED", "Invalid input: name: Field required"),
    401: ("Unauthorized", "AUTH_REQUIRED", "Authentication is required."),
    403: ("Forbidden", "FORBIDDEN", "You are not allowed to do this."),
    404: ("NotFound", "NOT_FOUND", "Not found."),
    409: ("Conflict", "CLAIM_ALREADY_ACTIVE", "This product already has a claim that is not closed."),
    413: ("PayloadTooLarge", "PAYLOAD_TOO_LARGE", "The request body or file is too large."),
    415: ("UnsupportedMediaType", "UNSUPPORTED_MEDIA_TYPE", "This file type is not allowed."),
    429: ("TooManyRequests", "RATE_LIMITED", "Too many failed sign-ins; try again later."),
    500: (
        "InternalError",
        "INTERNAL_ERROR",
        "Internal server error. Quote request id 3f2a… when reporting it.",
    ),
    503: ("ServiceUnavailable", "SERVICE_UNAVAILABLE", "The database is not reachable."),
}


class ErrorBody(BaseModel):
    error: str = Field(examples=["ValidationError"])
    message: str
    code: str = Field(examples=["VALIDATION_FAILED"])
    details: dict[str, Any] | None = None


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """`responses=` for a route: its error statuses, each with the shared body and an example."""
    responses: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        error, code, message = _EXAMPLES[status]
        responses[status] = {
            "model": ErrorBody,
            "description": error,
            "content": {"application/json": {"example": {"error": error, "message": message, "code": code}}},
        }
    return responses


def without_default_422(schema: dict[str, Any]) -> dict[str, Any]:
    """FastAPI documents a 422 on every route; this service answers bad input with 400 (the error body
    above), so the 422 entries and their schemas are removed from the document."""
    for path in schema.get("paths", {}).values():
        for operation in path.values():
            if isinstance(operation, dict):
                operation.get("responses", {}).pop("422", None)
    schemas = schema.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    return schema


def with_examples(
    responses: dict[int | str, dict[str, Any]],
    status: int,
    examples: dict[str, tuple[str, str, dict[str, Any] | None]],
) -> dict[int | str, dict[str, Any]]:
    """`responses` (from `errors`) with the error of `status` shown by named examples, each (code, message,
    details or None): for an operation whose answers of one status differ in code."""
    error = _EXAMPLES[status][0]
    named = {}
    for name, (code, message, details) in examples.items():
        body: dict[str, Any] = {"error": error, "message": message, "code": code}
        if details is not None:
            body["details"] = details
        named[name] = {"value": body}
    responses[status] = {**responses[status], "content": {"application/json": {"examples": named}}}
    return responses
