"""How news of committed events reaches the hub's tail reader: one small interface, two implementations.

`memory` (one process, SQLite): SQLAlchemy's after-commit hook. `postgres` (any number of processes):
LISTEN on a dedicated asyncpg connection; publish() sends NOTIFY with the event id in the transaction.
Either way the backend only wakes the reader, which reads the rows themselves from the table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

Wake = Callable[[], None]


class Backend(Protocol):
    async def start(self, wake: Wake) -> None:
        """Begin calling `wake` whenever events may have been committed."""

    async def stop(self) -> None:
        """Stop; release connections."""
