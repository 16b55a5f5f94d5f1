"""The transactional outbox: work that leaves the process is recorded in the transaction of the change
that causes it, and delivered after commit by the worker (app.outbox.worker)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.clock import utc_now
from app.core.db import commit_hooks, on_commit
from app.models import OutboxItem
from app.models.enums import OutboxKind, OutboxState
from app.observability import request_context


def enqueue(session: AsyncSession, kind: OutboxKind, payload: dict[str, Any]) -> OutboxItem:
    """Record one notification to deliver (`kind` names the worker's handler), with the id of the request
    that causes it, if any."""
    item = OutboxItem(
        kind=kind,
        payload=payload,
        status=OutboxState.PENDING,
        attempts=0,
        next_attempt_at=utc_now(),
        request_id=request_context.request_id(),
    )
    session.add(item)
    wake_worker(session)
    return item


def wake_worker(session: AsyncSession) -> None:
    """Once this session commits, the worker delivers at once rather than at its next poll."""
    wake = commit_hooks(session).wake_outbox
    if wake is not None:
        on_commit(session, wake)
