"""Engine, sessions, and the request-owned transaction.

The request owns the transaction: `SessionDep` commits after the route returns and before the response is
sent, so a failing commit becomes a 5xx. Repositories and services only flush.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, Request
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import Session

from app.config import Settings
from app.errors import AppError

_AFTER_COMMIT = "after_commit_callbacks"
_AFTER_ROLLBACK = "after_rollback_callbacks"
_KEEP_ON_ERROR = "commit_on_app_error"


def create_engine(settings: Settings) -> AsyncEngine:
    url = make_url(settings.database_url)
    if url.get_backend_name() == "sqlite":
        if url.database and url.database != ":memory:":
            Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, connect_args={"timeout": 30})
        _configure_sqlite(engine)
        return engine
    return create_async_engine(
        url, pool_size=settings.db_pool_size, max_overflow=settings.db_pool_size, pool_pre_ping=True
    )


def _configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, decide when transactions begin (see _on_begin).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        # IMMEDIATE takes the write lock up front: a read-then-write transaction can then never fail with
        # SQLITE_BUSY halfway; concurrent writers wait on busy_timeout instead.
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def create_sessionmaker(
    engine: AsyncEngine, info: dict[str, Any] | None = None
) -> async_sessionmaker[AsyncSession]:
    """`info` is copied into every session: the hooks through which commits reach the hub and the worker."""
    # `is not None`: an empty dict filled in later by the lifespans must be the very dict sessions copy.
    return async_sessionmaker(
        engine, expire_on_commit=False, autoflush=False, info=info if info is not None else {}
    )


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


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    sessionmaker: async_sessionmaker[AsyncSession] = request.app.state.sessionmaker
    async with sessionmaker() as session:
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


# scope="function": the commit runs before the response is sent, so its failure is the client's 5xx.
SessionDep = Annotated[AsyncSession, Depends(get_session, scope="function")]
