"""Error statuses in the OpenAPI document (app/api/openapi.py): each route's, with the shared error body and
an example, and none of the 422s FastAPI would document (the service answers bad input with 400)."""

from __future__ import annotations

from typing import Any

import httpx

from app.api.openapi import ErrorBody, errors, without_default_422


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


def test_each_status_gets_the_error_body_and_its_example() -> None:
    responses = errors(404, 409)

    assert list(responses) == [404, 409]
    assert responses[404]["model"] is ErrorBody and responses[404]["description"] == "NotFound"
    assert responses[409]["content"]["application/json"]["example"] == {
        "error": "Conflict",
        "message": "This product already has a claim that is not closed.",
        "code": "CLAIM_ALREADY_ACTIVE",
    }


def test_only_the_422s_are_removed() -> None:
    schema: dict[str, Any] = {
        "paths": {
            "/a": {
                "get": {"responses": {"200": {}, "422": {}, "400": {}}},
                "parameters": [{"name": "x"}],
            },
            "/b": {"post": {"responses": {"201": {}}}},
        },
        "components": {"schemas": {"HTTPValidationError": {}, "ValidationError": {}, "ErrorBody": {}}},
    }

    assert without_default_422(schema) is schema
    assert schema["paths"]["/a"] == {
        "get": {"responses": {"200": {}, "400": {}}},
        "parameters": [{"name": "x"}],
    }
    assert schema["paths"]["/b"] == {"post": {"responses": {"201": {}}}}
    assert schema["components"]["schemas"] == {"ErrorBody": {}}
