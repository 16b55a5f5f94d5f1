"""GET /.well-known/mercure as a lean pure ASGI handler, dispatched ahead of the JSON-API middleware.

A stream lives for hours and each of its frames would otherwise pass through every middleware layer and
keep FastAPI's request machinery (dependency exit stacks, the StreamingResponse task group and its
disconnect task) alive per connection. This handler does what those layers did for it: the request id,
CORS (Starlette's own CORSMiddleware, with the API's settings), errors in the contract's body. Every other
method on the path, CORS preflights included, goes on to the app as before.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.config import Settings
from app.core.clock import utc_now
from app.core.handlers import render
from app.core.middleware import assign_request_id
from app.errors import AppError, ServiceUnavailable, TooManyRequests
from app.realtime.access import authenticate, find_token, require_visible
from app.realtime.events import StoredEvent
from app.realtime.history import EARLIEST, events_after, ids_after, newest_id, replay_start
from app.realtime.hub import Hub, HubClosed, Subscriber, TooManyStreams
from app.realtime.stream import Timing, stream
from app.realtime.tail import EventTail
from app.realtime.topics import parse_topics

PATH = "/.well-known/mercure"
RETRY_AFTER = 10  # seconds, when a user already holds the maximum number of streams
STREAM_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]
END = {"type": "http.response.body", "body": b"", "more_body": False}


@dataclass
class Opened:
    """An authorized subscription: what its stream needs, the database no longer."""

    subscriber: Subscriber
    replay: list[StoredEvent]
    after: int | None
    newest: int | None
    expires_in: float  # seconds until the token expires


class HubEndpoint:
    """Answers GET /.well-known/mercure itself; passes every other request to `app`."""

    def __init__(self, app: ASGIApp, settings: Settings, cors: dict[str, Any]) -> None:
        self.app = app
        self.settings = settings
        self.cors = CORSMiddleware(self.serve, **cors)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == PATH and scope["method"] == "GET":
            await self.cors(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Authorizes, sends the head, then streams until the token expires, the hub closes the
        subscriber, or the client goes away."""
        request_id = assign_request_id(scope)
        state = scope["app"].state
        hub: Hub = state.hub
        try:
            opened = await self.open(Request(scope), hub, state.hub_tail, state.sessionmaker)
        except AppError as error:
            response = render(error)
            response.headers["X-Request-ID"] = request_id
            await response(scope, receive, send)
            return
        subscriber = opened.subscriber
        try:
            newest = str(opened.newest) if opened.newest is not None else EARLIEST
            headers = [
                *STREAM_HEADERS,
                (b"last-event-id", newest.encode()),
                (b"x-request-id", request_id.encode()),
            ]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await _request_body(receive)
            # uvicorn drops writes to a closed connection silently: only receive() tells it went away.
            gone = asyncio.ensure_future(receive())
            gone.add_done_callback(lambda _: hub.close_subscriber(subscriber, "disconnect"))
            timing = Timing(self.settings.sse_heartbeat, opened.expires_in)
            try:
                await stream(send, subscriber, opened.replay, opened.after, timing)
            finally:
                gone.cancel()
            await send(END)
        finally:
            hub.unsubscribe(subscriber)

    async def open(
        self, request: Request, hub: Hub, tail: EventTail, sessionmaker: async_sessionmaker[AsyncSession]
    ) -> Opened:
        """Checks the request and subscribes: a short session to authorize and read the replay; the
        stream itself holds none."""
        topics = parse_topics(request.query_params.getlist("topic"))
        token = find_token(request)
        last_event_id = request.headers.get("last-event-id") or request.query_params.get("lastEventID")
        async with sessionmaker() as session:
            user, claims = await authenticate(session, self.settings, token)
            await require_visible(session, user, {t.claim_id for t in topics})
            names = [t.name for t in topics]
            try:
                subscriber = hub.subscribe(user.id, names)
                # No await since subscribing: events up to here were fanned out before it existed.
                delivered_through = tail.watermark
            except TooManyStreams:
                raise TooManyRequests(RETRY_AFTER, "Too many open streams; close one first.") from None
            except HubClosed:
                raise ServiceUnavailable("The server is shutting down; reconnect shortly.") from None
            try:
                # Subscribed first, then read: nothing committed in between can fall through the crack.
                after = await replay_start(session, last_event_id)
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
        if skip:
            subscriber.skip = skip
        return Opened(subscriber, replay, after, newest, (claims.expires_at - utc_now()).total_seconds())


async def _request_body(receive: Receive) -> None:
    """Reads the request to its end (a GET has no body), so that the next receive() waits for the
    client to go away."""
    while True:
        message = await receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            return
