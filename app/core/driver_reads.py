"""The hottest reads, run on PostgreSQL straight on the driver's connection.

A statement through SQLAlchemy's ORM costs about four times its own work in asyncpg, and an endpoint
runs several (docs/performance.md, "Where a request's CPU goes"). A `DriverRead` is one SELECT built
once with SQLAlchemy as usual; on PostgreSQL it is compiled once and sent to the request's own asyncpg
connection, inside the session's transaction (begun first, as SQLAlchemy would), and its rows become
what the ORM would have returned: persistent instances in the session (changes to them flush as
usual) or rows with attribute access. What the service relies on around a statement stays true:

- the engine's `before_cursor_execute` and `after_cursor_execute` events fire with the statement, so
  statement counts and timings see it like any other;
- a driver error falls back to running the statement through SQLAlchemy, so errors, their translation
  and a dead connection's invalidation (503 while the database is away) are SQLAlchemy's own.

Other databases (SQLite) run the statement through the session unchanged.

It leans on the asyncpg adapter of the locked SQLAlchemy (its execute lock, its lazily begun transaction)
and on the compiled statement's bind processors; tests/core/test_driver_reads.py fails if a new version
moves them (the PostgreSQL path would fall back to the ORM, which that test refuses).
"""

from __future__ import annotations

import functools
from collections import namedtuple
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from sqlalchemy import Float, Numeric, Select, inspect
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import make_transient_to_detached
from sqlalchemy.orm.util import identity_key

E = TypeVar("E")
AnySelect = Select[*tuple[Any, ...]]

_NUMERIC_OID, _FLOAT_OID = 1700, 701  # what asyncpg reports for numeric and double precision columns


class _Compiled:
    def __init__(self, statement: AnySelect, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        names = list(compiled.positiontup or ())
        # Expanding parameters (`IN` a list) are rendered per call by SQLAlchemy, numbered after the
        # others; here each becomes one array parameter, `= ANY($n)`.
        self.lists = [name for name in names if compiled.binds[name].expanding]
        self.positions = [name for name in names if name not in self.lists]
        sql = compiled.string
        for number, name in enumerate(self.lists, start=len(self.positions) + 1):
            placeholder = f"(__[POSTCOMPILE_{name}])"
            sql = sql.replace(f"NOT IN {placeholder}", f"<> ALL(${number})")
            sql = sql.replace(f"IN {placeholder}", f"= ANY(${number})")
        self.sql: str | None = None if "__[POSTCOMPILE_" in sql else sql  # None: SQLAlchemy runs it
        self.defaults = {name: bind.value for name, bind in compiled.binds.items() if not bind.required}
        processors: dict[str, Any] = dict(compiled._bind_processors)
        self.binds = {name: processors.get(name) for name in names}
        self.results: list[Callable[[Any], Any] | None] = [
            column.type.dialect_impl(dialect).result_processor(dialect, _oid_of(column.type))
            for column in statement.selected_columns
        ]

    def arguments(self, params: dict[str, Any]) -> list[Any]:
        values = []
        for name in self.positions:
            value = params.get(name, self.defaults.get(name))
            process = self.binds[name]
            values.append(process(value) if process is not None else value)
        for name in self.lists:
            items = list(params.get(name, self.defaults.get(name)) or ())
            process = self.binds[name]
            values.append([process(item) for item in items] if process is not None else items)
        return values

    def values(self, record: Sequence[Any]) -> list[Any]:
        return [
            value if process is None else process(value)
            for process, value in zip(self.results, record, strict=True)
        ]


def _oid_of(column_type: Any) -> int | None:
    if isinstance(column_type, Float):
        return _FLOAT_OID
    return _NUMERIC_OID if isinstance(column_type, Numeric) else None


class DriverRead(Generic[E]):
    """One SELECT on the driver's connection (see the module docstring). `entity` makes `one` and `all`
    answer persistent instances of that mapped class; the statement must then select exactly its
    columns (`select(Entity)`)."""

    def __init__(self, statement: AnySelect, entity: type[E] | None = None) -> None:
        self.statement = statement
        self.entity = entity
        self.keys: list[str] = [str(column.key) for column in statement.selected_columns]
        self.identity: list[str] = []
        self.mapper = None if entity is None else inspect(entity)
        if self.mapper is not None:
            key_of = self.mapper.get_property_by_column
            self.keys = [key_of(column).key for column in statement.selected_columns]
            self.identity = [key_of(column).key for column in self.mapper.primary_key]
        # Rows as SQLAlchemy's Row reads: by attribute, by position, unpacked.
        self._row = namedtuple("Row", self.keys, rename=True)  # type: ignore[misc]
        self._compiled: _Compiled | None = None

    async def all(self, session: AsyncSession, **params: Any) -> list[Any]:
        """Every row: persistent instances of `entity`, or rows with attribute access."""
        connection = await session.connection()
        records = None
        if connection.dialect.driver == "asyncpg":
            records = await self._fetch(connection, params)
        if records is None:  # another database, or the driver failed: SQLAlchemy's own path, errors and all
            return await self._through_orm(session, params)
        compiled = self._compiled
        assert compiled is not None
        if self.entity is None:
            return [self._row(*compiled.values(record)) for record in records]
        rows = [dict(zip(self.keys, compiled.values(record), strict=True)) for record in records]
        instances = [self._persistent(session, row) for row in rows]
        if None in instances:  # the session holds one of them expired: the ORM refreshes it
            return await self._through_orm(session, params)
        return instances

    async def _through_orm(self, session: AsyncSession, params: dict[str, Any]) -> list[Any]:
        result = await session.execute(self.statement, params)
        return list(result.scalars() if self.entity is not None else result.all())

    async def one(self, session: AsyncSession, **params: Any) -> E | None:
        """The first row's instance (or row), None when there is none."""
        found = await self.all(session, **params)
        return found[0] if found else None

    async def get(self, session: AsyncSession, ident: Any, **params: Any) -> E | None:
        """As `session.get(entity, ident)`: the session's current copy without a statement when it holds
        one, else this read (whose parameters select that one row)."""
        assert self.entity is not None
        held = session.identity_map.get(identity_key(self.entity, ident))
        if held is not None:
            return await session.get(self.entity, ident)  # the ORM's answer: no statement unless expired
        return await self.one(session, **params)

    async def scalar(self, session: AsyncSession, **params: Any) -> Any:
        """The first column of the first row (None when there is none)."""
        connection = await session.connection()
        records = None
        if connection.dialect.driver == "asyncpg":
            records = await self._fetch(connection, params)
        if records is None:
            return await session.scalar(self.statement, params)
        assert self._compiled is not None
        return self._compiled.values(records[0])[0] if records else None

    async def _fetch(self, connection: Any, params: dict[str, Any]) -> list[Any] | None:
        if self._compiled is None:
            self._compiled = _Compiled(self.statement, connection.dialect)
        compiled = self._compiled
        if compiled.sql is None:
            return None
        arguments = compiled.arguments(params)
        sync = connection.sync_connection
        cursor = object()  # what the events' listeners may key a statement's timing on
        sync.dispatch.before_cursor_execute(sync, cursor, compiled.sql, arguments, None, False)
        adapted = sync.connection.dbapi_connection
        try:
            async with adapted._execute_mutex:
                if adapted._transaction is None:
                    await adapted._start_transaction()
                records = await adapted._connection.fetch(compiled.sql, *arguments)
        except Exception:
            return None
        sync.dispatch.after_cursor_execute(sync, cursor, compiled.sql, arguments, None, False)
        return records

    def _persistent(self, session: AsyncSession, values: dict[str, Any]) -> E | None:
        """The row as a persistent instance; the session's own copy when it holds one already (as the ORM
        answers), None when that copy is expired."""
        assert self.mapper is not None
        key = self.mapper.identity_key_from_primary_key([values[name] for name in self.identity])
        held = session.identity_map.get(key)
        if held is not None:
            return None if inspect(held).expired_attributes else held
        instance = self.mapper.class_manager.new_instance()
        instance.__dict__.update(values)
        make_transient_to_detached(instance)
        session.add(instance)
        return instance


@functools.lru_cache(maxsize=256)
def driver_read(statement: AnySelect) -> DriverRead[Any]:
    """The DriverRead of a statement shape built once elsewhere (a cached builder's answer): compiled once
    per shape. Statements built anew per call must not come here."""
    return DriverRead(statement)
