"""The hub's subscription endpoint, at the path a Mercure hub uses."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.clock import utc_now
from app.core.deps import SettingsDep
from app.core.openapi import errors
from app.errors import ServiceUnavailable, TooManyRequests
from app.realtime.access import authenticate, find_token, require_visible
from app.realtime.history import EARLIEST, events_after, ids_after, newest_id, replay_start
from app.realtime.hub import Hub, HubClosed, TooManyStreams
from app.realtime.stream import Stream, Timing
from app.realtime.tail import EventTail
from app.realtime.topics import parse_topics

router = APIRouter(prefix="", tags=["realtime"])

RETRY_AFTER = 10  # seconds, when a user already holds the maximum number of streams

STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


@router.get(
    "/.well-known/mercure",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"text/event-stream": {"example": 'id: 42\ndata: {"type":"new_message",...}\n\n'}}},
        **errors(400, 401, 403, 429),
    },
)
async def subscribe(
    request: Request,
    settings: SettingsDep,
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
    topics = parse_topics(topic)
    token = find_token(request)
    hub: Hub = request.app.state.hub
    tail: EventTail = request.app.state.hub_tail
    sessionmaker: async_sessionmaker[AsyncSession] = request.app.state.sessionmaker
    # A short session to authorize and read the replay; the stream itself holds none.
    async with sessionmaker() as session:
        user, claims = await authenticate(session, settings, token)
        await require_visible(session, user, {t.claim_id for t in topics})
        names = [t.name for t in topics]
        try:
            subscriber = hub.subscribe(user.id, names)
            # No await since subscribing: events up to here were fanned out before this subscriber existed.
            delivered_through = tail.watermark
        except TooManyStreams:
            raise TooManyRequests(RETRY_AFTER, "Too many open streams; close one first.") from None
        except HubClosed:
            raise ServiceUnavailable("The server is shutting down; reconnect shortly.") from None
        try:
            # Subscribed first, then read: nothing committed in between can fall through the crack.
            after = await replay_start(session, last_event_id or last_event_id_query)
            if after is None:
                # Committed before this connection but not fanned out yet: not news, never sent live.
                replay, skip = [], await ids_after(session, names, delivered_through)
            else:
                replay = await events_after(session, names, after)
                skip = {event.id for event in replay}
            newest = await newest_id(session)
        except BaseException:
            hub.unsubscribe(subscriber)
            raise
    timing = Timing(
        heartbeat=settings.sse_heartbeat,
        expires_in=(claims.expires_at - utc_now()).total_seconds(),
    )
    stream = Stream(hub, subscriber, replay, skip, after, timing)
    headers = {**STREAM_HEADERS, "Last-Event-ID": str(newest) if newest is not None else EARLIEST}
    return StreamingResponse(stream.frames(), media_type="text/event-stream", headers=headers)
