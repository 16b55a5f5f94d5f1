"""The outbox as an admin sees it: a page of rows, and failed rows put back to pending (the worker is woken
once the change commits)."""

from __future__ import annotations

from sqlalchemy import func, select, update

from app.core.clock import utc_now
from app.core.ids import MAX_BIGINT_ID
from app.core.repository import Repository
from app.errors import Conflict, NotFound
from app.models import OutboxItem
from app.models.enums import OutboxState
from app.outbox.enqueue import wake_worker


class OutboxRepository(Repository):
    async def page(
        self, status: str | None, limit: int, offset: int, after_id: int | None = None
    ) -> tuple[list[OutboxItem], int]:
        """Newest first; `after_id`: the rows after that one (a cursor's key)."""
        query = select(OutboxItem)
        count = select(func.count()).select_from(OutboxItem)
        if status is not None:
            query, count = query.where(OutboxItem.status == status), count.where(OutboxItem.status == status)
        total = int(await self.session.scalar(count) or 0)
        if after_id is not None:
            query = query.where(OutboxItem.id < after_id)
        rows = await self.session.scalars(query.order_by(OutboxItem.id.desc()).limit(limit).offset(offset))
        return list(rows), total

    async def retry(self, item_id: int) -> OutboxItem:
        """Put a failed row back to pending, attempts reset, due now. Pending rows are left to the worker
        (one may be mid-delivery) and done rows were delivered: both 409 NOTIFICATION_NOT_FAILED."""
        # An id past the column's range names no row; asking the database would overflow its integer.
        item = await self.session.get(OutboxItem, item_id) if 1 <= item_id <= MAX_BIGINT_ID else None
        if item is None:
            raise NotFound("No such notification.")
        if item.status != OutboxState.FAILED:
            raise Conflict(
                f"Only failed notifications can be retried; this one is {item.status}.",
                code="NOTIFICATION_NOT_FAILED",
            )
        item.status, item.attempts, item.next_attempt_at = OutboxState.PENDING, 0, utc_now()
        item.locked_until = None
        await self.session.flush()
        self._wake_worker()
        return item

    async def retry_failed(self, kind: str | None) -> int:
        """Put every failed row (of `kind`, when given) back to pending, attempts reset, due now; answers
        how many. One statement, whatever their number."""
        statement = (
            update(OutboxItem)
            .where(OutboxItem.status == OutboxState.FAILED)
            .values(status=OutboxState.PENDING, attempts=0, next_attempt_at=utc_now(), locked_until=None)
            .execution_options(synchronize_session=False)
        )
        if kind is not None:
            statement = statement.where(OutboxItem.kind == kind)
        result = await self.session.execute(statement)
        count = int(getattr(result, "rowcount", 0) or 0)
        if count:
            self._wake_worker()
        return count

    def _wake_worker(self) -> None:
        wake_worker(self.session)
