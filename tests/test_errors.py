"""Domain errors (app/errors.py): each carries its status, name, code and a default message; the body holds
details only when there are some; a 401 asks for a bearer token, a 429 and a 503 say when to retry."""

from __future__ import annotations

import pytest

from app.errors import (
    AppError,
    Conflict,
    Forbidden,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    ServiceUnavailable,
    TooManyRequests,
    Unauthorized,
    UnsupportedMediaType,
    ValidationFailed,
)


@pytest.mark.parametrize(
    ("error", "status", "name", "code"),
    [
        (AppError(), 500, "InternalError", "INTERNAL_ERROR"),
        (ValidationFailed(), 400, "ValidationError", "VALIDATION_FAILED"),
        (Unauthorized(), 401, "Unauthorized", "AUTH_REQUIRED"),
        (Forbidden(), 403, "Forbidden", "FORBIDDEN"),
        (NotFound(), 404, "NotFound", "NOT_FOUND"),
        (MethodNotAllowed(), 405, "MethodNotAllowed", "METHOD_NOT_ALLOWED"),
        (Conflict(), 409, "Conflict", "CONFLICT"),
        (PayloadTooLarge(), 413, "PayloadTooLarge", "PAYLOAD_TOO_LARGE"),
        (UnsupportedMediaType(), 415, "UnsupportedMediaType", "UNSUPPORTED_MEDIA_TYPE"),
        (TooManyRequests(30), 429, "TooManyRequests", "RATE_LIMITED"),
        (ServiceUnavailable(), 503, "ServiceUnavailable", "SERVICE_UNAVAILABLE"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_each_error_answers_its_status_with_a_default_message(
    error: AppError, status: int, name: str, code: str
) -> None:
    assert (error.status, error.code) == (status, code)
    assert error.body() == {"error": name, "message": error.message, "code": code}
    assert error.message and str(error) == error.message


def test_a_message_code_and_details_of_its_own() -> None:
    error = Conflict(
        "This product already has an open claim.", code="CLAIM_ALREADY_ACTIVE", details={"id": 4}
    )

    assert error.body() == {
        "error": "Conflict",
        "message": "This product already has an open claim.",
        "code": "CLAIM_ALREADY_ACTIVE",
        "details": {"id": 4},
    }
    assert "details" not in Conflict(details={}).body()  # empty details are left out
    assert Conflict().code == "CONFLICT"  # the class's default is untouched


def test_a_field_problem_names_the_field() -> None:
    error = ValidationFailed.field("supplierId", "must be the id of a user with ROLE_SUPPLIER")

    assert error.message == "supplierId: must be the id of a user with ROLE_SUPPLIER"
    assert error.details == {"fields": {"supplierId": "must be the id of a user with ROLE_SUPPLIER"}}


def test_a_401_asks_for_a_bearer_token() -> None:
    assert Unauthorized().headers == {"WWW-Authenticate": "Bearer"}
    own = Unauthorized("Wrong email or password.", code="AUTH_INVALID_CREDENTIALS", headers={"X-A": "1"})
    assert (own.code, own.headers) == ("AUTH_INVALID_CREDENTIALS", {"X-A": "1", "WWW-Authenticate": "Bearer"})
    kept = Unauthorized(headers={"WWW-Authenticate": 'Basic realm="inbound"'})
    assert kept.headers == {"WWW-Authenticate": 'Basic realm="inbound"'}


@pytest.mark.parametrize(("retry_after", "header"), [(30, "30"), (1, "1"), (0, "1"), (-5, "1")])
def test_a_429_says_when_to_retry_one_second_at_least(retry_after: int, header: str) -> None:
    error = TooManyRequests(retry_after, "Too many failed sign-ins; try again later.")
    assert (error.headers, error.message) == (
        {"Retry-After": header},
        "Too many failed sign-ins; try again later.",
    )


def test_a_503_says_when_to_retry() -> None:
    assert ServiceUnavailable().headers == {"Retry-After": "5"}
    assert ServiceUnavailable(retry_after=120).headers == {"Retry-After": "120"}
    assert ServiceUnavailable("The server is shutting down.", retry_after=0).headers == {"Retry-After": "5"}


def test_errors_do_not_share_their_headers() -> None:
    first, second = Unauthorized(), Unauthorized()
    first.headers["X-Extra"] = "1"
    assert second.headers == {"WWW-Authenticate": "Bearer"}
    assert AppError().headers == {}
