"""Error statuses in the OpenAPI document (app/api/openapi.py): each route's, with the shared error body and
an example, and none of the 422s FastAPI would document (the service answers bad input with 400)."""

from __future__ import annotations

from typing import Any

import httpx

from app.api.openapi import ErrorBody, errors, with_examples, without_default_422


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


def test_a_status_may_be_shown_by_named_examples() -> None:
    responses = with_examples(
        errors(400, 409), 409, {"exists": ("RMA_EXISTS", "It exists.", None), "other": ("X", "Y", {"a": 1})}
    )

    assert responses[409]["model"] is ErrorBody and responses[409]["description"] == "Conflict"
    assert responses[409]["content"]["application/json"] == {
        "examples": {
            "exists": {"value": {"error": "Conflict", "message": "It exists.", "code": "RMA_EXISTS"}},
            "other": {"value": {"error": "Conflict", "message": "Y", "code": "X", "details": {"a": 1}}},
        }
    }
    assert "example" in responses[400]["content"]["application/json"]


async def test_issuing_a_return_documents_each_conflict(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/api/openapi.json")).json()
    conflict = spec["paths"]["/api/claims/{id}/rma"]["post"]["responses"]["409"]["content"][
        "application/json"
    ]
    codes = {example["value"]["code"] for example in conflict["examples"].values()}
    assert codes == {"RMA_EXISTS", "CLAIM_NOT_IN_PROGRESS", "RMA_NUMBERS_EXHAUSTED"}
    assert conflict["schema"] == {"$ref": "#/components/schemas/ErrorBody"}
