"""Domain errors. Each carries its HTTP status; one handler (app.api.error_handlers) renders them all."""

from __future__ import annotations

from typing import Any


class AppError(Exception):
    status: int = 500
    error: str = "InternalError"
    code: str = "INTERNAL_ERROR"
    message: str = "Internal server error."

    def __init__(
        self,
        message: str | None = None,
        *,
        code: str | None = None,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.message = message or self.message
        self.code = code or self.code
        self.details = details
        self.headers = headers or {}
        super().__init__(self.message)

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"error": self.error, "message": self.message, "code": self.code}
        if self.details:
            body["details"] = self.details
        return body


class ValidationFailed(AppError):
    status = 400
    error = "ValidationError"
    code = "VALIDATION_FAILED"
    message = "The request is not valid."

    @classmethod
    def field(cls, field: str, problem: str) -> ValidationFailed:
        return cls(f"{field}: {problem}", details={"fields": {field: problem}})


class Unauthorized(AppError):
    status = 401
    error = "Unauthorized"
    code = "AUTH_REQUIRED"
    message = "Authentication is required."

    def __init__(self, message: str | None = None, *, code: str | None = None, **kwargs: Any) -> None:
        super().__init__(message, code=code, **kwargs)
        self.headers.setdefault("WWW-Authenticate", "Bearer")


class Forbidden(AppError):
    status = 403
    error = "Forbidden"
    code = "FORBIDDEN"
    message = "You are not allowed to do this."


class NotFound(AppError):
    status = 404
    error = "NotFound"
    code = "NOT_FOUND"
    message = "Not found."


class MethodNotAllowed(AppError):
    status = 405
    error = "MethodNotAllowed"
    code = "METHOD_NOT_ALLOWED"
    message = "This method is not allowed on this path."


class Conflict(AppError):
    status = 409
    error = "Conflict"
    code = "CONFLICT"
    message = "The request conflicts with the current state."


class PayloadTooLarge(AppError):
    status = 413
    error = "PayloadTooLarge"
    code = "PAYLOAD_TOO_LARGE"
    message = "The request body or file is too large."


class UnsupportedMediaType(AppError):
    status = 415
    error = "UnsupportedMediaType"
    code = "UNSUPPORTED_MEDIA_TYPE"
    message = "This file type is not allowed."


class TooManyRequests(AppError):
    status = 429
    error = "TooManyRequests"
    code = "RATE_LIMITED"
    message = "Too many requests; try again later."

    def __init__(self, retry_after: int, message: str | None = None) -> None:
        super().__init__(message, headers={"Retry-After": str(max(1, retry_after))})


class ServiceUnavailable(AppError):
    """Always with `Retry-After` (docs/api.md §2): default RETRY_AFTER seconds."""

    status = 503
    error = "ServiceUnavailable"
    code = "SERVICE_UNAVAILABLE"
    message = "The service is temporarily unavailable; try again."
    RETRY_AFTER = 5

    def __init__(self, message: str | None = None, *, retry_after: int | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.headers.setdefault("Retry-After", str(max(1, retry_after or self.RETRY_AFTER)))
