"""The hub's subscription path as the OpenAPI document shows it, at the path a Mercure hub uses. A stub: the
streams themselves are answered by the hub's ASGI entry (app.realtime.asgi_entry), ahead of FastAPI."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Query
from fastapi.responses import StreamingResponse

from app.api.openapi import errors

router = APIRouter(prefix="", tags=["realtime"])


@router.get(
    "/.well-known/mercure",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"text/event-stream": {"example": 'id: 42\ndata: {"type":"new_message",...}\n\n'}}},
        **errors(400, 401, 403, 429),
    },
)
async def subscribe(
    topic: Annotated[
        list[str],
        Query(
            description="claims/{id}/messages or claims/{id}/status, or a published topic or URI template; "
            "repeats"
        ),
    ] = [],  # noqa: B006
    match: Annotated[
        list[str], Query(description="An exact topic (a claim topic, or a published one; `*`: all)")
    ] = [],  # noqa: B006
    match_url_pattern: Annotated[
        list[str], Query(alias="matchURLPattern", description="A WHATWG URL Pattern of published topics")
    ] = [],  # noqa: B006
    match_urlpattern: Annotated[list[str], Query(description="As matchURLPattern")] = [],  # noqa: B006
    authorization: Annotated[str | None, Query(description="An access token (else header or cookie)")] = None,
    last_event_id_query: Annotated[str | None, Query(alias="lastEventID")] = None,
    last_event_id_v1: Annotated[str | None, Query(alias="last_event_id")] = None,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> StreamingResponse:
    """Server-Sent Events for the given topics (a Mercure hub: docs/api.md, "The hub for Mercure users").

    Credentials, first found wins: `Authorization: Bearer` header, `authorization` query parameter,
    `mercureAuthorization` then `mercureAccessToken` cookie (set by login). The service's events are
    `id:` + `data:` (one JSON object, 6.1), no `event:` line; published updates are framed as published
    (`event:`, `retry:`, a `data:` line per line). A comment line every WARRANTY_SSE_HEARTBEAT seconds.
    `Last-Event-ID` (header, else the `lastEventID` or `last_event_id` parameter) replays the missed
    events of these topics, then the stream goes live; `earliest` replays all history. The stream ends
    when the token expires. A `match...` parameter the hub does not know -> 400."""
    # Only for the OpenAPI document (and the 405 on other methods): GET on this path is answered by
    # app.realtime.asgi_entry.HubEndpoint, ahead of the routers and their middleware (app.main.Warranty).
    raise NotImplementedError
