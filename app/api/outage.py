"""Telling "the database cannot be reached" from any other failure: the first is a 503 with Retry-After
(docs/api.md §2), the second a 500.

What an outage raises depends on where it strikes: connecting (a refused or reset socket, a timeout, the
server starting up or shutting down), a pooled connection the server closed (SQLAlchemy marks it
invalidated), or the pool waiting for a connection in vain. The cause chain is walked, since SQLAlchemy
wraps the driver's error and FastAPI may wrap it again.
"""

from __future__ import annotations

from sqlalchemy import exc as sa_exc

# SQLSTATE class 08 (connection exception), and the server refusing or dropping work as it stops or starts.
_UNAVAILABLE_STATES = ("08", "57P01", "57P02", "57P03")


def database_unavailable(error: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if _is_outage(current):
            return True
        current = current.__cause__ or current.__context__
    return False


def _is_outage(error: BaseException) -> bool:
    if isinstance(error, ConnectionError | TimeoutError | sa_exc.TimeoutError | sa_exc.DisconnectionError):
        return True
    if isinstance(error, sa_exc.DBAPIError) and error.connection_invalidated:
        return True
    state = getattr(error, "sqlstate", None) or getattr(error, "pgcode", None)
    if isinstance(state, str) and state.startswith(_UNAVAILABLE_STATES):
        return True
    # asyncpg's "connection is closed" / "connection was closed in the middle of operation"
    closed_names = {"ConnectionDoesNotExistError", "InterfaceError"}
    return type(error).__name__ in closed_names and "closed" in str(error)
