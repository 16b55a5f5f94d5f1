"""How news of committed events reaches the hub's tail reader: one small interface, two implementations.

`memory` (one process, SQLite): SQLAlchemy's after-commit hook. `postgres` (any number of processes):
LISTEN on a dedicated asyncpg connection; publish() sends NOTIFY with the event id in the transaction.
The memory backend hands the committed events to the tail; the PostgreSQL one only wakes it, and the
tail reads the rows from the table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from app.realtime.tail import EventTail


class Backend(Protocol):
    async def start(self, tail: EventTail) -> None:
        """Begin telling `tail` about committed events (tail.accept) or that there may be some (tail.wake)."""

    async def stop(self) -> None:
        """Stop; release connections."""
