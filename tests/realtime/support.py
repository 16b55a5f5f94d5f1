"""The real-time tests' support: a claim with its two parties and a token (`scene`), a real uvicorn server
on a free port, a second server process, and a small Server-Sent-Events reader with deadlines."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field

import httpx
import uvicorn
from fastapi import FastAPI

from app.config import Settings
from app.core.security import create_access_token
from app.main import create_app
from app.models import Claim, User
from tests.factories.claims import create_claim
from tests.factories.products import create_product
from tests.factories.users import create_supplier, create_user

HUB = "/.well-known/mercure"


def token_for(app: FastAPI, user: User) -> str:
    return create_access_token(app.state.settings, user.id, list(user.roles))


@dataclass
class Scene:
    customer: User
    supplier: User
    claim: Claim
    token: str


async def scene(app: FastAPI) -> Scene:
    """A customer's claim on their product, with an assigned supplier; `token` is the customer's."""
    customer = await create_user(app)
    supplier = await create_supplier(app)
    claim = await create_claim(app, await create_product(app, customer), supplier=supplier)
    return Scene(customer, supplier, claim, token_for(app, customer))


@dataclass
class Process:
    """A server in a process of its own (the `second_process` fixture of tests/realtime/conftest.py)."""

    url: str
    popen: subprocess.Popen[bytes]


@dataclass
class LiveServer:
    app: FastAPI
    server: uvicorn.Server
    task: asyncio.Task[None]
    url: str

    async def stop(self, within: float = 10.0) -> None:
        self.server.should_exit = True
        async with asyncio.timeout(within):
            await self.task


@contextlib.asynccontextmanager
async def live_server(
    settings: Settings, port: int = 0, *, access_log: bool = False
) -> AsyncIterator[LiveServer]:
    """`create_app(settings)` served by uvicorn on 127.0.0.1 (on `port`, else any free one), in this event
    loop (logging each request on `uvicorn.access`, as uvicorn does by default, when `access_log`)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    port = sock.getsockname()[1]
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        log_level="info" if access_log else "warning",
        access_log=access_log,
        lifespan="on",
        timeout_graceful_shutdown=30,
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    async with asyncio.timeout(15):
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
    live = LiveServer(app, server, task, f"http://127.0.0.1:{port}")
    try:
        yield live
    finally:
        if not task.done():
            await live.stop()
        sock.close()


@dataclass
class Message:
    id: str | None = None
    data: str | None = None
    comments: list[str] = field(default_factory=list)
    retry: int | None = None  # the reconnection delay the server asked for, in ms
    event: str | None = None  # the `event:` type (published updates only)


class EventReader:
    """Reads one SSE response: `next()` answers the next dispatched block (an event or a comment)."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self._lines = response.aiter_lines()

    async def next(self, within: float = 10.0) -> Message | None:
        """The next block, or None when the stream ended."""
        message = Message()
        async with asyncio.timeout(within):
            async for line in self._lines:
                if line == "":
                    if (
                        message.id is not None
                        or message.data is not None
                        or message.comments
                        or message.retry
                    ):
                        return message
                    continue
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if name == "":
                    message.comments.append(value)
                elif name == "id":
                    message.id = value
                elif name == "data":
                    message.data = value if message.data is None else f"{message.data}\n{value}"
                elif name == "retry":
                    message.retry = int(value)
                elif name == "event":
                    message.event = value
                else:
                    raise AssertionError(f"unexpected SSE line {line!r}")
        return None

    async def event(self, within: float = 10.0) -> Message:
        """The next event, skipping heartbeats; fails if the stream ends first."""
        async with asyncio.timeout(within):
            while True:
                message = await self.next(within)
                assert message is not None, "the stream ended"
                if message.data is not None:
                    return message

    async def events(self, count: int, within: float = 10.0) -> list[tuple[int, str]]:
        """The next `count` events as (id, data)."""
        found = []
        for _ in range(count):
            message = await self.event(within)
            assert message.id is not None and message.data is not None
            found.append((int(message.id), message.data))
        return found

    async def end(self, within: float = 10.0) -> list[Message]:
        """Reads until the server ends the stream; answers what came before."""
        seen: list[Message] = []
        async with asyncio.timeout(within):
            while (message := await self.next(within)) is not None:
                seen.append(message)
        return seen


@contextlib.asynccontextmanager
async def subscribe(
    client: httpx.AsyncClient, *topics: str, token: str | None = None, **kwargs: object
) -> AsyncIterator[EventReader]:
    """Opens a stream (Bearer `token` when given) and checks it answered 200."""
    params: list[tuple[str, str]] = [("topic", topic) for topic in topics]
    extra = kwargs.pop("params", None)
    if isinstance(extra, list):
        params.extend(extra)
    headers = dict(kwargs.pop("headers", None) or {})  # type: ignore[call-overload]
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    async with client.stream("GET", HUB, params=params, headers=headers, **kwargs) as response:  # type: ignore[arg-type]
        if response.status_code != 200:
            await response.aread()
            raise AssertionError(f"{response.status_code}: {response.text}")
        yield EventReader(response)


async def answer(
    http: httpx.AsyncClient, params: list[tuple[str, str]], headers: Mapping[str, str | bytes]
) -> httpx.Response:
    """The hub's answer; an opened stream is closed at once (its body is never read)."""
    async with http.stream("GET", HUB, params=params, headers=headers) as response:  # type: ignore[arg-type]
        if response.status_code != 200:
            await response.aread()
        return response
