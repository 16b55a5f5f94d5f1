"""Every error path answers in the contract's body shape."""

from __future__ import annotations

import logging

import httpx
import pytest
from fastapi import FastAPI

from app.api.dependencies import SessionDep
from app.models import User
from tests.factories.users import create_user
from tests.helpers import assert_error


async def test_unknown_route_and_wrong_method(client: httpx.AsyncClient) -> None:
    assert_error(await client.get("/api/nowhere"), 404, "NOT_FOUND")
    assert_error(await client.delete("/api/login"), 405, "METHOD_NOT_ALLOWED")


async def test_malformed_json(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/login", content=b'{"email": ', headers={"content-type": "application/json"}
    )
    assert_error(response, 400, "MALFORMED_JSON")


async def test_validation_error_names_each_field(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/register", json={"email": "x@example.com", "name": 5, "extra": 1})
    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert set(body["details"]["fields"]) == {"password", "name", "extra"}  # type: ignore[index]
    assert body["details"]["fields"]["extra"] == "unknown field"  # type: ignore[index]


@pytest.mark.settings(max_body_size=1024)
async def test_oversized_body_by_length_and_by_stream(client: httpx.AsyncClient) -> None:
    big = b'{"email": "' + b"a" * 2000 + b'"}'
    assert_error(
        await client.post("/api/login", content=big, headers={"content-type": "application/json"}),
        413,
        "PAYLOAD_TOO_LARGE",
    )

    async def chunks():  # type: ignore[no-untyped-def]
        for _ in range(10):
            yield b" " * 200

    streamed = await client.post("/api/login", content=chunks(), headers={"content-type": "application/json"})
    assert_error(streamed, 413, "PAYLOAD_TOO_LARGE")


@pytest.mark.parametrize("declared", ["9" * 4301, "0" * 5000 + "12"])
async def test_a_content_length_of_thousands_of_digits_is_measured_not_converted(
    app: FastAPI, declared: str
) -> None:
    """int() of 4,301 digits raises past Python's digit limit: that was a 500. Leading zeros count nothing."""
    answers: list[dict[str, object]] = []

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict[str, object]) -> None:
        answers.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/login",
        "raw_path": b"/api/login",
        "root_path": "",
        "query_string": b"",
        "headers": [(b"content-length", declared.encode()), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }
    await app(scope, receive, send)  # type: ignore[arg-type]
    status = answers[0]["status"]
    assert status == (413 if declared.startswith("9") else 400)


async def test_unexpected_error_is_a_500_with_request_id(
    app: FastAPI, client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    async def explode() -> None:
        raise RuntimeError("secret internals")

    app.router.add_api_route("/api/test-explode", explode)

    with caplog.at_level(logging.ERROR):
        response = await client.get("/api/test-explode", headers={"X-Request-ID": "req-123"})

    body = assert_error(response, 500, "INTERNAL_ERROR")
    assert body["error"] == "InternalError"
    assert body["details"] == {"requestId": "req-123"}
    assert "secret internals" not in response.text
    assert response.headers["x-request-id"] == "req-123"
    assert any("req-123" in record.getMessage() and record.exc_info for record in caplog.records)


async def test_a_commit_that_fails_gives_a_5xx_never_a_2xx(app: FastAPI, client: httpx.AsyncClient) -> None:
    await create_user(app, email="taken@example.com")

    async def add_duplicate(session: SessionDep) -> dict[str, str]:
        # Not flushed: the unique violation surfaces only when the request's transaction commits.
        session.add(User(email="taken@example.com", name="Dup", password_hash="x", roles=["ROLE_USER"]))
        return {"status": "created"}

    app.router.add_api_route("/api/test-commit", add_duplicate, methods=["POST"], status_code=201)

    response = await client.post("/api/test-commit")

    assert response.status_code == 500
    assert_error(response, 500, "INTERNAL_ERROR")


async def test_every_response_carries_a_request_id(client: httpx.AsyncClient) -> None:
    response = await client.get("/health")
    assert len(response.headers["x-request-id"]) == 32


async def test_health_and_readiness(client: httpx.AsyncClient) -> None:
    assert (await client.get("/health")).json() == {"status": "ok"}
    assert (await client.get("/health/ready")).json() == {"status": "ready"}


@pytest.mark.settings(database_url="postgresql+asyncpg://postgres@127.0.0.1:9/unreachable")
async def test_readiness_fails_without_a_database(client: httpx.AsyncClient) -> None:
    assert (await client.get("/health")).status_code == 200
    assert_error(await client.get("/health/ready"), 503, "SERVICE_UNAVAILABLE")


async def test_openapi_documents_the_error_body(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/api/openapi.json")).json()
    login = spec["paths"]["/api/login"]["post"]
    assert {"400", "401", "429"} <= set(login["responses"])
    assert "ErrorBody" in spec["components"]["schemas"]
    assert (await client.get("/api/docs")).status_code == 200


async def test_openapi_documents_no_422_the_service_never_sends(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/api/openapi.json")).json()
    operations = [operation for path in spec["paths"].values() for operation in path.values()]
    documented = {status for operation in operations for status in operation["responses"]}
    assert "422" not in documented
    assert "HTTPValidationError" not in spec["components"]["schemas"]
