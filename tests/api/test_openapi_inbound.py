"""What routes cannot declare themselves, written into the OpenAPI document (app/api/openapi_inbound.py): the
hub's credentials and required topics, the inbound webhooks' signatures and three payload formats."""

from __future__ import annotations

from typing import Any

from app.api.openapi_inbound import (
    HUB_PATH,
    INBOUND_SCHEMAS,
    SECURITY_SCHEMES,
    STANDARD_INBOUND,
    document_hub,
    document_inbound,
)
from tests.api.support import Document, by_id, query


def test_the_hub_documents_its_credentials_and_required_topic(spec: Document) -> None:
    hub = by_id(spec, "subscribe")
    topic = query(hub, "topic")
    assert (
        topic["required"] is True and topic["schema"]["minItems"] == 1 and topic["schema"]["maxItems"] == 50
    )
    assert hub["security"] == [{"HTTPBearer": []}, {"HubQuery": []}, {"HubCookie": []}]
    schemes = spec["components"]["securitySchemes"]
    assert (schemes["HubQuery"]["in"], schemes["HubQuery"]["name"]) == ("query", "authorization")
    assert (schemes["HubCookie"]["in"], schemes["HubCookie"]["name"]) == ("cookie", "mercureAuthorization")


def test_the_inbound_webhooks_document_their_payloads_and_signatures(spec: Document) -> None:
    schemes = spec["components"]["securitySchemes"]
    provider, standard = by_id(spec, "providerInbound"), by_id(spec, "standardInbound")
    for operation in (provider, standard):
        body = operation["requestBody"]["content"]["application/json"]
        assert [ref["$ref"].rsplit("/", 1)[1] for ref in body["schema"]["oneOf"]] == [
            "InboundProviderEvent",
            "InboundPostmark",
            "InboundGeneric",
        ]
        assert set(body["examples"]) == {"provider", "postmark", "generic"}
    assert provider["security"] == [{"ResendSignature": []}, {"PostmarkSignature": []}, {"PostmarkBasic": []}]
    assert standard["security"] == [{"StandardWebhooks": []}]
    assert schemes["StandardWebhooks"]["name"] == "webhook-signature"
    assert schemes["PostmarkBasic"] == {**schemes["PostmarkBasic"], "type": "http", "scheme": "basic"}
    assert {p["name"] for p in standard["parameters"]} >= {"webhook-id", "webhook-timestamp"}


def test_a_document_without_the_routes_gets_only_the_components() -> None:
    document: Document = {"paths": {"/api/other": {"post": {"responses": {}}}}}

    document_inbound(document)
    document_hub(document)

    assert document["paths"] == {"/api/other": {"post": {"responses": {}}}}
    assert document["components"]["securitySchemes"] == SECURITY_SCHEMES
    assert set(INBOUND_SCHEMAS) <= set(document["components"]["schemas"])


def test_the_hub_loses_its_query_token_parameter_and_keeps_the_others() -> None:
    """The token in the query is a security scheme, not a parameter a client fills in."""
    parameters: list[dict[str, Any]] = [
        {"in": "query", "name": "authorization", "schema": {"type": "string"}},
        {"in": "query", "name": "topic", "schema": {"type": "string"}},
        {"in": "header", "name": "Last-Event-ID", "schema": {"type": "string"}},
        {"in": "query", "name": "lastEventID", "schema": {"type": "string"}},
    ]
    document: Document = {"paths": {HUB_PATH: {"get": {"parameters": parameters, "responses": {"200": {}}}}}}

    document_hub(document)

    operation = document["paths"][HUB_PATH]["get"]
    assert [(p["in"], p["name"]) for p in operation["parameters"]] == [
        ("query", "topic"),
        ("header", "Last-Event-ID"),
        ("query", "lastEventID"),
    ]
    assert {p["name"]: p["schema"].get("pattern") for p in operation["parameters"]} == {
        "topic": None,
        "Last-Event-ID": "^(earliest|[0-9]{1,19})$",
        "lastEventID": "^(earliest|[0-9]{1,19})$",
    }
    assert list(operation["responses"]["200"]["content"]) == ["text/event-stream"]


def test_the_standard_webhook_keeps_its_own_parameters() -> None:
    own = {"in": "path", "name": "x", "schema": {"type": "string"}}
    document: Document = {"paths": {STANDARD_INBOUND: {"post": {"parameters": [own]}}}}

    document_inbound(document)

    names = [p["name"] for p in document["paths"][STANDARD_INBOUND]["post"]["parameters"]]
    assert names == ["x", "webhook-id", "webhook-timestamp"]
