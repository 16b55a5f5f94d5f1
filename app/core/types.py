"""Column types that behave the same on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, TypeVar

from sqlalchemy import JSON, BigInteger, DateTime, Dialect, Integer, String
from sqlalchemy.types import TypeDecorator

# SQLite only autoincrements an INTEGER PRIMARY KEY.
E = TypeVar("E", bound=StrEnum)

BigIntPK = BigInteger().with_variant(Integer(), "sqlite")


class UtcDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes in, timezone-aware UTC datetimes out (SQLite stores them naive)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class StrEnumColumn(TypeDecorator[E]):
    """A `StrEnum` stored as its value in a plain string column (the schema is the same as a `String` of
    that length, so no migration): members in, members out. `lenient` reads a value the enum does not know
    back as the plain string instead of failing the row (outbox kinds: a row may name a handler no longer
    there, and the worker reports it)."""

    impl = String
    cache_ok = True

    def __init__(self, enum: type[E], length: int, *, lenient: bool = False) -> None:
        super().__init__(length)
        self.enum = enum
        self.lenient = lenient

    def process_bind_param(self, value: str | None, dialect: Dialect) -> Any:
        return None if value is None else str(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> E | None:
        if value is None:
            return None
        if self.lenient:
            return self.enum._value2member_map_.get(value, value)
        return self.enum(value)


class StrEnumList(TypeDecorator[list[E]]):
    """A list of `StrEnum` members stored as a JSON array of their values (user roles)."""

    impl = JSON
    cache_ok = True

    def __init__(self, enum: type[E]) -> None:
        super().__init__()
        self.enum = enum

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        return None if value is None else [str(item) for item in value]

    def process_result_value(self, value: Any, dialect: Dialect) -> list[E] | None:
        return None if value is None else [self.enum(item) for item in value]
