"""The one place that turns errors into HTTP responses, all in the body of docs/api.md §2."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from app.api.outage import database_unavailable
from app.errors import (
    AppError,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    ServiceUnavailable,
    Unauthorized,
    ValidationFailed,
)

logger = logging.getLogger("warranty.errors")

METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")


def render(error: AppError, extra_headers: dict[str, str] | None = None) -> JSONResponse:
    headers = {**error.headers, **(extra_headers or {})}
    return JSONResponse(error.body(), status_code=error.status, headers=headers or None)


async def _app_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, AppError)
    return render(exc)


def _field_name(location: tuple[Any, ...]) -> str:
    parts = [str(part) for part in location if part not in ("body", "query", "path", "header", "cookie")]
    return ".".join(parts) or "body"


def field_problems(errors: Sequence[Any]) -> dict[str, str]:
    """Pydantic's errors as `details.fields`: field name -> what is wrong (the first problem of each)."""
    fields: dict[str, str] = {}
    for error in errors:
        message = "unknown field" if error.get("type") == "extra_forbidden" else str(error.get("msg"))
        fields.setdefault(_field_name(tuple(error.get("loc", ()))), message)
    return fields


async def _validation_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    if any(error.get("type") == "json_invalid" for error in errors):
        return render(ValidationFailed("The request body is not valid JSON.", code="MALFORMED_JSON"))
    fields = field_problems(errors)
    summary = "; ".join(f"{name}: {problem}" for name, problem in fields.items())
    return render(ValidationFailed(f"Invalid input: {summary}", details={"fields": fields}))


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    error: AppError
    if exc.status_code == 404:
        error = NotFound("No such resource.")
    elif exc.status_code == 405:
        error = MethodNotAllowed()
    elif exc.status_code == 413:
        error = PayloadTooLarge()
    elif exc.status_code == 401:
        error = Unauthorized()
    else:
        error = AppError(str(exc.detail))
        error.status = exc.status_code
        error.error = "HTTPError"
        error.code = f"HTTP_{exc.status_code}"
    if exc.headers:
        error.headers.update(exc.headers)
    if exc.status_code == 405:
        error.headers["Allow"] = _allowed_methods(request)
    return render(error)


def _allowed_methods(request: Request) -> str:
    """Every method some route on this path accepts (Starlette names only the first route that matched
    the path, and a path often has one route per method): each method is tried against the routes."""
    routes = request.app.router.routes
    allowed = [
        method
        for method in METHODS
        if any(route.matches({**request.scope, "method": method})[0] == Match.FULL for route in routes)
    ]
    return ", ".join(allowed)


async def _unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    return internal_error(getattr(request.state, "request_id", "-"), exc)


def internal_error(request_id: str, exc: BaseException) -> JSONResponse:
    """Logs an unexpected error; the 500 the caller gets quotes the request id. The database out of reach
    is not a bug but an outage: 503 with Retry-After."""
    if database_unavailable(exc):
        logger.warning("database unreachable (request %s): %s", request_id, exc)
        unavailable = ServiceUnavailable("The database cannot be reached right now; try again shortly.")
        return render(unavailable, {"X-Request-ID": request_id})
    logger.error("unhandled error (request %s)", request_id, exc_info=exc)
    error = AppError(f"Internal server error. Quote request id {request_id} when reporting it.")
    error.details = {"requestId": request_id}
    return JSONResponse(error.body(), status_code=500, headers={"X-Request-ID": request_id})


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(AppError, _app_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected_error)
