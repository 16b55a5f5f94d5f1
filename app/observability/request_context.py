"""The request being served, in a context variable: its id and, once known, its user's id.

Log records read it (app.observability.logs), outbox rows copy its id (app.outbox.enqueue), and the
outbox worker binds a row's id while delivering it, so every line a request causes names it. One mutable
object per request: a user found in a dependency is seen by the middleware that bound it, whatever context
copies lie between."""

from __future__ import annotations

from contextvars import ContextVar, Token
from dataclasses import dataclass


@dataclass(slots=True)
class RequestContext:
    request_id: str
    user_id: int | None = None


_current: ContextVar[RequestContext | None] = ContextVar("warranty_request", default=None)


def bind(request_id: str) -> Token[RequestContext | None]:
    """Makes `request_id` the current request's until `unbind` (or the end of the task)."""
    return _current.set(RequestContext(request_id))


def unbind(token: Token[RequestContext | None]) -> None:
    _current.reset(token)


def current() -> RequestContext | None:
    return _current.get()


def request_id() -> str | None:
    context = _current.get()
    return context.request_id if context is not None else None


def set_user(user_id: int) -> None:
    """The caller is known: later lines of this request name the user too."""
    context = _current.get()
    if context is not None:
        context.user_id = user_id
