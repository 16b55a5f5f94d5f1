"""Telling a database outage from any other failure (app/api/outage.py): connection errors and timeouts,
an invalidated connection, the connection-exception SQLSTATEs and a closed asyncpg connection are outages,
found anywhere down the cause chain; a constraint violation or a plain bug is not."""

from __future__ import annotations

import pytest
from sqlalchemy import exc as sa_exc

from app.api.outage import database_unavailable


class _DriverError(Exception):
    """A driver's error carrying a SQLSTATE, as asyncpg's (`sqlstate`) and psycopg's (`pgcode`) do."""

    def __init__(self, message: str, *, sqlstate: str | None = None, pgcode: str | None = None) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate
        self.pgcode = pgcode


class ConnectionDoesNotExistError(Exception):
    """Named as asyncpg's."""


class InterfaceError(Exception):
    """Named as asyncpg's."""


def _wrapped(cause: BaseException) -> BaseException:
    """As SQLAlchemy raises it (its cause), and as a handler that fails in turn raises another error while
    handling it (its context)."""
    try:
        try:
            raise sa_exc.OperationalError("SELECT 1", {}, cause) from cause
        except sa_exc.OperationalError:
            raise RuntimeError("while handling the request")  # noqa: B904
    except RuntimeError as outer:
        return outer


@pytest.mark.parametrize(
    "error",
    [
        ConnectionRefusedError(111, "Connection refused"),
        ConnectionResetError(),
        TimeoutError(),
        sa_exc.TimeoutError("QueuePool limit reached"),
        sa_exc.DisconnectionError(),
        sa_exc.DBAPIError("SELECT 1", {}, Exception("gone"), connection_invalidated=True),
        _DriverError("connection failure", sqlstate="08006"),
        _DriverError("admin shutdown", sqlstate="57P01"),
        _DriverError("crash shutdown", pgcode="57P02"),
        _DriverError("cannot connect now", sqlstate="57P03"),
        ConnectionDoesNotExistError("connection was closed in the middle of operation"),
        InterfaceError("connection is closed"),
    ],
    ids=repr,
)
def test_outages_are_found_alone_and_down_the_chain(error: BaseException) -> None:
    assert database_unavailable(error)
    assert database_unavailable(_wrapped(error))


@pytest.mark.parametrize(
    "error",
    [
        ValueError("a bug"),
        sa_exc.IntegrityError("INSERT", {}, Exception("duplicate key")),
        sa_exc.DBAPIError("SELECT 1", {}, Exception("syntax"), connection_invalidated=False),
        _DriverError("unique violation", sqlstate="23505"),
        _DriverError("query canceled", sqlstate="57014"),
        InterfaceError("cannot use a connection in a transaction"),
        ConnectionDoesNotExistError("something else"),
    ],
    ids=repr,
)
def test_other_failures_are_no_outage(error: BaseException) -> None:
    assert not database_unavailable(error)
    assert not database_unavailable(_wrapped(error))


def test_a_chain_that_loops_ends() -> None:
    first, second = ValueError("one"), ValueError("two")
    first.__cause__, second.__context__ = second, first
    assert not database_unavailable(first)
