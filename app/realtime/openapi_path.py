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
        list[str], Query(description="claims/{id}/messages or claims/{id}/status; repeats")
    ] = [],  # noqa: B006
    authorization: Annotated[str | None, Query(description="An access token (else header or cookie)")] = None,
    last_event_id_query: Annotated[str | None, Query(alias="lastEventID")] = None,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> StreamingResponse:
    """Server-Sent Events for the given topics (Mercure-compatible).

    Credentials, first found wins: `Authorization: Bearer` header, `authorization` query parameter,
    `mercureAuthorization` cookie (set by login). Each event is `id:` + `data:` (one JSON object, 6.1),
    no `event:` line; a comment line every WARRANTY_SSE_HEARTBEAT seconds. `Last-Event-ID` (header, else
    the `lastEventID` parameter) replays the missed events of these topics, then the stream goes live;
    `earliest` replays all history. The stream ends when the token expires."""
    # Only for the OpenAPI document (and the 405 on other methods): GET on this path is answered by
    # app.realtime.asgi_entry.HubEndpoint, ahead of the routers and their middleware (app.main.Warranty).
    raise NotImplementedError
