"""The hub's path in the OpenAPI document (app.realtime.openapi_path): described there, and its stub route
answers other methods than GET with a 405 (GET is answered ahead of FastAPI, by app.realtime.asgi_entry)."""

from __future__ import annotations

import httpx

from tests.helpers import assert_error
from tests.realtime.support import HUB, LiveServer


async def test_other_methods_are_405(live: LiveServer, http: httpx.AsyncClient) -> None:
    response = await http.put(HUB, params={"topic": "claims/1/messages"})
    assert_error(response, 405, "METHOD_NOT_ALLOWED")
    assert response.headers["x-request-id"]
    assert {"GET", "POST"} <= {method.strip() for method in response.headers["allow"].split(",")}


async def test_the_openapi_document_describes_the_hub(http: httpx.AsyncClient) -> None:
    operation = (await http.get("/api/openapi.json")).json()["paths"][HUB]["get"]
    assert "Server-Sent Events" in operation["summary"] + operation["description"]
    names = {parameter["name"] for parameter in operation["parameters"]}
    # The query token is a security scheme.
    assert names == {
        "topic",
        "match",
        "matchURLPattern",
        "match_urlpattern",
        "lastEventID",
        "last_event_id",
        "Last-Event-ID",
    }
    assert "text/event-stream" in operation["responses"]["200"]["content"]
    assert {"400", "401", "403", "429"} <= set(operation["responses"])
