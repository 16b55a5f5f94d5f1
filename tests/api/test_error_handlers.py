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
