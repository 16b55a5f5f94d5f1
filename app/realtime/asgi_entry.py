"""The hub's ASGI entry: GET /.well-known/mercure as a lean pure ASGI app, answered ahead of FastAPI's
middleware stack (app.main.Warranty.__call__ hands it these requests; app.realtime.openapi_path only
documents the path).

A stream lives for hours: every layer it passes through keeps a coroutine frame alive per connection, and
a layer that wraps `send` adds a call to every frame. So the app (app.main.Warranty) hands these requests
to this endpoint before its middleware, and the endpoint does itself what those layers did for it: the
request id, CORS (the headers of the response start, computed by Starlette's CORSMiddleware with the API's
options), errors in the body of docs/api.md §2, a 500 quoting the request id. Every other method on the path,
CORS preflights included, goes through the app as before.
"""

from __future__ import annotations

import asyncio
import functools
import time
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from app.api.error_handlers import internal_error, render
from app.api.middleware import request_id_of
from app.config import Settings
from app.core.clock import utc_now
from app.errors import AppError, ServiceUnavailable, TooManyRequests
from app.observability import request_context
from app.observability.metrics import series
from app.realtime.challenge import with_challenge
from app.realtime.history import EARLIEST, newest_id, replay_start
from app.realtime.hub import Hub, HubClosed, Subscriber, TooManyStreams, frame
from app.realtime.publishing import StoredEvent
from app.realtime.replay import committed_ids, replay_for, resolve_last_event_id
from app.realtime.stream import stream
from app.realtime.subscriber_access import find_token, identify
from app.realtime.subscription_query import parse_query

PATH = "/.well-known/mercure"
RETRY_AFTER = 10  # seconds, when a user already holds the maximum number of streams
STREAM_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]
END = {"type": "http.response.body", "body": b"", "more_body": False}


@dataclass
class Subscription:
    """An authorized subscription: what its stream needs, the database no longer."""

    subscriber: Subscriber
    replay: list[StoredEvent]
    after: int | None  # the replay's start; live events at or below it are not sent
    newest: int | None  # the newest event id at connection time (the Last-Event-ID header)


class HubEndpoint:
    """The pure ASGI app behind GET /.well-known/mercure."""

    def __init__(self, settings: Settings, cors: dict[str, Any]) -> None:
        self.settings = settings
        # Used for its `send` only: the CORS headers of a response start, exactly as the API's.
        self.cors = CORSMiddleware(self, **cors)

    @staticmethod
    def handles(scope: Scope) -> bool:
        return scope["type"] == "http" and scope["path"] == PATH and scope["method"] == "GET"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Streams until the hub closes the subscriber: token expiry, lost access, overflow, shutdown,
        or the client going away (only receive() tells: uvicorn drops writes to a closed connection)."""
        began = time.perf_counter()
        request_id = request_id_of(scope)
        bound = request_context.bind(request_id)
        try:
            started = await self.start(scope, receive, send, request_id)
            # Counted as a request when its answer starts (a stream may then last for hours).
            status = started.status_code if isinstance(started, Response) else 200
            series().observe_request("GET", PATH, status, time.perf_counter() - began)
            if not isinstance(started, Response):
                await self.serve(scope, receive, send, *started)
        finally:
            request_context.unbind(bound)

    async def serve(
        self, scope: Scope, receive: Receive, send: Send, subscriber: Subscriber, after: int
    ) -> None:
        hub: Hub = scope["app"].state.hub
        streams = series().hub_streams
        streams.inc()
        try:
            await _request_body(receive)
            gone = asyncio.ensure_future(receive())
            gone.add_done_callback(subscriber.disconnected)
            try:
                await stream(send, subscriber, after)
            finally:
                gone.cancel()
            await send(END)
        finally:
            hub.unsubscribe(subscriber)
            streams.dec()

    async def start(
        self, scope: Scope, receive: Receive, send: Send, request_id: str
    ) -> tuple[Subscriber, int] | Response:
        """Subscribes, then sends the response start and the replay; answers the error response instead
        when it refused."""
        send_head = functools.partial(self.cors.send, send=send, request_headers=Headers(scope=scope))
        try:
            subscription = await self.subscribe(Request(scope))
        except AppError as error:
            return await _respond(render(with_challenge(error)), request_id, scope, receive, send_head)
        except Exception as error:
            return await _respond(internal_error(request_id, error), request_id, scope, receive, send_head)
        subscriber = subscription.subscriber
        try:
            newest = str(subscription.newest) if subscription.newest is not None else EARLIEST
            headers = [
                *STREAM_HEADERS,
                (b"last-event-id", newest.encode()),
                (b"x-request-id", request_id.encode()),
            ]
            await send_head({"type": "http.response.start", "status": 200, "headers": headers})
            if subscription.replay:
                replay = b"".join(frame(event) for event in subscription.replay)
                await send({"type": "http.response.body", "body": replay, "more_body": True})
        except BaseException:
            scope["app"].state.hub.unsubscribe(subscriber)
            raise
        return subscriber, subscription.after or 0

    async def subscribe(self, request: Request) -> Subscription:
        """Checks the request and subscribes: a short session to authorize and read the replay."""
        wanted = parse_query(request.query_params.multi_items(), self.settings.hub_resource)
        token = find_token(request)
        last_event_id, field = _last_event_id(request)
        state = request.app.state
        hub: Hub = state.hub
        async with state.read_sessionmaker() as session:  # reads only: no write lock, no BEGIN/COMMIT
            identity = await identify(session, self.settings, token, {t.claim_id for t in wanted.claims})
            user_id = identity.user.id if identity.user is not None else None
            try:
                subscriber = hub.subscribe(user_id, wanted.names, tuple(wanted.matchers), identity.grants)
                # No await since subscribing: events up to here were fanned out before it existed.
                delivered_through = state.hub_tail.watermark
            except TooManyStreams:
                series().throttled.labels("hub_streams").inc()
                raise TooManyRequests(RETRY_AFTER, "Too many open streams; close one first.") from None
            except HubClosed:
                raise ServiceUnavailable("The server is shutting down; reconnect shortly.") from None
            try:
                # Subscribed first, then read: nothing committed in between can fall through the crack.
                # The read starts a snapshot of its own: on SQLite the authorization's read transaction
                # began before subscribing, and an event committed and fanned out in between would be
                # neither live nor in that older snapshot.
                await session.commit()
                wanted_after = await resolve_last_event_id(session, last_event_id, field)
                after = await replay_start(session, wanted_after)
                if after is None:
                    # Committed before this connection but not fanned out yet: not news, never sent live.
                    replay, skip = [], await committed_ids(session, subscriber, delivered_through)
                else:
                    replay = await replay_for(session, subscriber, after)
                    skip = {event.id for event in replay}
                newest = await newest_id(session)
            except BaseException:
                hub.unsubscribe(subscriber)
                raise
        if skip:
            subscriber.skip = skip
        subscriber.credential_version = identity.credential_version
        if identity.expires_at is not None:
            subscriber.expires_at = (
                asyncio.get_running_loop().time() + (identity.expires_at - utc_now()).total_seconds()
            )
        return Subscription(subscriber, replay, after, newest)


def _last_event_id(request: Request) -> tuple[str | None, str]:
    """The header, else the query parameter, the released protocol's name first (EventSource sends the
    header when it reconnects); with the name it came by, for a 400."""
    header = request.headers.get("last-event-id")
    if header:
        return header, "Last-Event-ID"
    for name in ("lastEventID", "last_event_id"):
        value = request.query_params.get(name)
        if value:
            return value, name
    return None, "lastEventID"


async def _respond(
    response: Response, request_id: str, scope: Scope, receive: Receive, send: Send
) -> Response:
    response.headers["X-Request-ID"] = request_id
    await response(scope, receive, send)
    return response


async def _request_body(receive: Receive) -> None:
    """Reads the request to its end (a GET has no body), so that the next receive() waits for the
    client to go away."""
    while True:
        message = await receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            return
