"""Engine, sessions, and the request-owned transaction.

The request owns the transaction: `SessionDep` commits after the route returns and before the response is
sent, so a failing commit becomes a 5xx. Repositories and services only flush.

GET and HEAD requests only read: their sessions come from the read engine and refuse to write. On
PostgreSQL it runs in autocommit (READ COMMITTED gives each statement its own snapshot anyway, so BEGIN and
COMMIT were two round trips for nothing); on SQLite it begins a deferred transaction, so a read never
takes the write lock.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import Request
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import ORMExecuteState, Session

from app.config import Settings
from app.core.private_files import private_folder, tighten
from app.errors import AppError

_AFTER_COMMIT = "after_commit_callbacks"
_AFTER_ROLLBACK = "after_rollback_callbacks"
_KEEP_ON_ERROR = "commit_on_app_error"
_COMMIT_HOOKS = "commit_hooks"
_READ_ONLY = "warranty_read_only"  # a session info key and a SQLite execution option
_IDLE_SINCE = "idle_since"
READ_METHODS = ("GET", "HEAD")
# A pooled connection unused for this long is pinged before use (a restarted server drops them all);
# one in steady use is not: a ping is a round trip on every request.
PING_IDLE_AFTER = 5.0  # seconds


class WriteInReadRequest(RuntimeError):
    """A GET or HEAD request tried to write: a bug, never a client's error."""


def create_engine(settings: Settings) -> AsyncEngine:
    url = make_url(settings.database_url)
    if url.get_backend_name() == "sqlite":
        database = Path(url.database) if url.database and url.database != ":memory:" else None
        if database is not None:
            private_folder(database.parent)
        engine = create_async_engine(url, connect_args={"timeout": 30})
        _configure_sqlite(engine, database)
        return engine
    engine = create_async_engine(url, pool_size=settings.db_pool_size, max_overflow=settings.db_pool_size)
    _ping_idle_connections(engine)
    return engine


def create_read_engine(engine: AsyncEngine) -> AsyncEngine:
    """The same pool, for requests that only read (see the module docstring)."""
    if engine.dialect.name == "sqlite":
        return engine.execution_options(**{_READ_ONLY: True})
    return engine.execution_options(isolation_level="AUTOCOMMIT")


def _ping_idle_connections(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "checkout")
    def _on_checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.get(_IDLE_SINCE)
        if idle_since is not None and time.monotonic() - idle_since < PING_IDLE_AFTER:
            return
        try:
            dbapi_connection.ping()
        except Exception as error:
            raise DisconnectionError("stale pooled connection") from error  # the pool connects anew

    @event.listens_for(engine.sync_engine, "checkin")
    def _on_checkin(_dbapi_connection: Any, record: Any) -> None:
        record.info[_IDLE_SINCE] = time.monotonic()


def _configure_sqlite(engine: AsyncEngine, database: Path | None) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, decide when transactions begin (see _on_begin).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()
        if database is not None:
            # Made by another program or an earlier release: private from now on. SQLite gives the
            # journal files it creates later the database file's mode.
            for path in (
                database,
                database.with_name(database.name + "-wal"),
                database.with_name(database.name + "-shm"),
            ):
                tighten(path)

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        # IMMEDIATE takes the write lock up front: a read-then-write transaction can then never fail with
        # SQLITE_BUSY halfway; concurrent writers wait on busy_timeout instead. Reads need no lock.
        conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get(_READ_ONLY) else "BEGIN IMMEDIATE")


@dataclass(slots=True)
class CommitHooks:
    """How a commit reaches what runs beside the database in this process: one per app (or command), shared
    by its sessionmakers, filled in by the lifespans that start the hub and the worker and emptied when they
    stop (None: nothing listens). Code that needs one registers it with `on_commit`, so it runs only once
    the transaction has committed, in commit order, never on rollback."""

    # The hub (SQLite, one process): a committed event's id, topic and payload (app.realtime.publishing).
    publish_event: Callable[[int, str, str], None] | None = None
    # The outbox worker: something was enqueued, deliver now rather than at the next poll (app.outbox).
    wake_outbox: Callable[[], None] | None = None


async def use_one_snapshot(session: AsyncSession) -> None:
    """Every later read of the session sees one snapshot (PostgreSQL: REPEATABLE READ, read only; SQLite's
    read transaction is one already): a REST read and the event id it hands to a stream agree. Routes
    declare it as `ONE_SNAPSHOT`: route-level dependencies run before the endpoint's own, so nothing has
    used the session yet."""
    if session.get_bind().dialect.name != "postgresql" or session.in_transaction():
        return
    await session.connection(
        execution_options={"isolation_level": "REPEATABLE READ", "postgresql_readonly": True}
    )


def create_sessionmaker(
    engine: AsyncEngine, hooks: CommitHooks | None = None
) -> async_sessionmaker[AsyncSession]:
    """Every session it makes carries `hooks` (read them with `commit_hooks`)."""
    return async_sessionmaker(
        engine, expire_on_commit=False, autoflush=False, info={_COMMIT_HOOKS: hooks or CommitHooks()}
    )


def commit_hooks(session: AsyncSession) -> CommitHooks:
    """The hooks of the sessionmaker that made `session` (none set for a session made elsewhere)."""
    hooks = session.info.get(_COMMIT_HOOKS)
    return hooks if isinstance(hooks, CommitHooks) else CommitHooks()


def on_commit(session: AsyncSession, callback: Callable[[], None]) -> None:
    """Run `callback` once this session's transaction has committed; dropped on rollback."""
    session.info.setdefault(_AFTER_COMMIT, []).append(callback)


def keep_on_error(session: AsyncSession) -> None:
    """Commit this request's changes even though it ends with a domain error (AppError)."""
    session.info[_KEEP_ON_ERROR] = True


def on_rollback(session: AsyncSession, callback: Callable[[], None]) -> None:
    """Run `callback` if this session's transaction rolls back; dropped on commit."""
    session.info.setdefault(_AFTER_ROLLBACK, []).append(callback)


@event.listens_for(Session, "after_commit")
def _run_after_commit(session: Session) -> None:
    session.info.pop(_AFTER_ROLLBACK, None)
    for callback in session.info.pop(_AFTER_COMMIT, []):
        callback()


@event.listens_for(Session, "after_rollback")
def _run_after_rollback(session: Session) -> None:
    session.info.pop(_AFTER_COMMIT, None)
    for callback in session.info.pop(_AFTER_ROLLBACK, []):
        callback()


@event.listens_for(Session, "before_flush")
def _refuse_flush_in_reads(session: Session, _context: Any, _instances: Any) -> None:
    if session.info.get(_READ_ONLY) and (session.new or session.dirty or session.deleted):
        raise WriteInReadRequest("a GET or HEAD request may not change data")


@event.listens_for(Session, "do_orm_execute")
def _refuse_statements_in_reads(state: ORMExecuteState) -> None:
    if state.session.info.get(_READ_ONLY) and (state.is_insert or state.is_update or state.is_delete):
        raise WriteInReadRequest("a GET or HEAD request may not change data")


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    reading = request.method in READ_METHODS
    state = request.app.state
    sessionmaker: async_sessionmaker[AsyncSession] = (
        state.read_sessionmaker if reading else state.sessionmaker
    )
    async with sessionmaker() as session:
        if reading:
            session.info[_READ_ONLY] = True
        try:
            yield session
            await session.commit()
        except AppError:
            # A domain error normally undoes the request; a few records (a failed login) must outlive it.
            if session.info.pop(_KEEP_ON_ERROR, False):
                await session.commit()
            else:
                await session.rollback()
            raise
        except BaseException:
            await session.rollback()
            raise
