"""The event id a REST read corresponds to: where a client that read, then subscribes, resumes the stream.

A read of a claim (its detail, its messages) answers `Link: <hub>; rel="mercure"; last-event-id="<id>"`
(Mercure's reconciliation). Subscribing with that id must give exactly what happened after the read:
every event at or below the id is already reflected in what the read showed, none above it is.

Event ids follow commit order (app.realtime.publishing): when an id is visible, every lower id is either
visible too or will never exist. So the newest id seen by the read's own snapshot splits history exactly
where the read does. The read and the id must share that snapshot: on SQLite a read request is one
transaction (one snapshot); on PostgreSQL read requests run in autocommit, one snapshot per statement, so a
route that hands off to the stream declares `dependencies=[ONE_SNAPSHOT]`, which makes its reads one
REPEATABLE READ, read-only transaction (app.core.db.use_one_snapshot).
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.realtime.history import EARLIEST, newest_id


async def resume_point(session: AsyncSession) -> str:
    """The newest event id visible to this session (`earliest` when there is none): the `last-event-id`
    of the `Link` header. Exact when the route declares ONE_SNAPSHOT (see the module docstring)."""
    newest = await newest_id(session)
    return str(newest) if newest is not None else EARLIEST
