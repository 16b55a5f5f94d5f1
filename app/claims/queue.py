"""An organisation's queue (contract 17.7): the claims routed to it, oldest first, for its members. Two
statements (rows and total) whatever the page size and the organisation's size, down the queue's partial
indexes (`ix_claims_organization_created_id`, and `..._status_created_id` with a status)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import ColumnElement, Select, func, select, tuple_

from app.api.pagination import KeyKind
from app.claims.repository import LIST_COLUMNS, SLA_COLUMNS, after_key, with_list_joins
from app.core.repository import Repository
from app.errors import ValidationFailed
from app.models import Claim, ClaimDeadline, Organization, Product

Assigned = Literal["me", "none", "any"]
# The queue's orders: `created` (oldest first) and `due` (17.8's soonest open deadline first).
SORTS = ("created", "due")
# A queue's cursor key: (created_at, id), or (next_due_at, id) with `sort=due`.
QUEUE_KEY: tuple[KeyKind, KeyKind] = ("datetime", "int")


@dataclass(frozen=True)
class QueueFilter:
    status: str | None = None
    assigned: Assigned = "any"
    agent_id: int | None = None
    brand: str | None = None
    q: str | None = None

    def conditions(self, viewer_id: int) -> list[ColumnElement[bool]]:
        conditions: list[ColumnElement[bool]] = []
        if self.status is not None:
            conditions.append(Claim.status == self.status)
        if self.assigned == "me":
            conditions.append(Claim.supplier_id == viewer_id)
        elif self.assigned == "none":
            conditions.append(Claim.supplier_id.is_(None))
        if self.agent_id is not None:
            conditions.append(Claim.supplier_id == self.agent_id)
        if self.brand is not None:
            conditions.append(func.lower(Product.brand) == self.brand.lower())
        if self.q is not None:
            # The product's name and the description, lower-cased, in the claim's own row.
            conditions.append(Claim.search_text.like(f"%{escape_like(self.q.lower())}%", escape="/"))
        return conditions

    @property
    def reads_product(self) -> bool:
        return self.brand is not None


def escape_like(term: str) -> str:
    """`term` matched as it is inside a LIKE pattern (escape character `/`), as the product search does."""
    return term.replace("/", "//").replace("%", "/%").replace("_", "/_")


def check_sort(sort: str | None) -> str:
    """`created` (the default) or `due`; anything else is 400 VALIDATION_INVALID_SORT naming them."""
    chosen = "created" if sort is None else sort.strip()
    if chosen in SORTS:
        return chosen
    allowed = ", ".join(SORTS)
    raise ValidationFailed(f"sort must be one of: {allowed}.", code="VALIDATION_INVALID_SORT")


def queue_rows(
    organization_id: int,
    where: QueueFilter,
    viewer_id: int,
    after: tuple[Any, ...] | None = None,
    sort: str = "created",
) -> Select[Any]:
    """The queue's items (the list item, with `supplier_id` and the deadlines), oldest first, or with
    `sort=due` soonest open deadline first (claims without one last), ties by id; `after`: the claims after
    that key ((created_at, id), or (next_due_at, id)). By due time the rows are read down
    `ix_claim_deadlines_organization_next_due` (every routed claim has a deadline row)."""
    conditions = [Claim.organization_id == organization_id, *where.conditions(viewer_id)]
    columns = with_list_joins(select(*LIST_COLUMNS, Claim.supplier_id, *SLA_COLUMNS))
    if sort == "due":
        rows = columns.join(ClaimDeadline, ClaimDeadline.claim_id == Claim.id).where(
            ClaimDeadline.organization_id == organization_id, *conditions
        )
        key = (ClaimDeadline.next_due_at, ClaimDeadline.claim_id)
    else:
        rows = columns.outerjoin(ClaimDeadline, ClaimDeadline.claim_id == Claim.id).where(*conditions)
        key = (Claim.created_at, Claim.id)
    if after is not None:
        rows = rows.where(tuple_(*key) > after_key(after))
    return rows.order_by(*key)


def queue_total(organization_id: int, where: QueueFilter, viewer_id: int) -> Select[Any]:
    """How many claims the queue holds under the filters."""
    count = select(func.count()).select_from(Claim)
    if where.reads_product:
        count = count.join(Product, Product.id == Claim.product_id)
    return count.where(Claim.organization_id == organization_id, *where.conditions(viewer_id))


class ClaimQueue(Repository):
    async def organization_exists(self, organization_id: int) -> bool:
        found = await self.session.scalar(select(Organization.id).where(Organization.id == organization_id))
        return found is not None

    async def page(
        self,
        organization_id: int,
        where: QueueFilter,
        viewer_id: int,
        *,
        offset: int,
        limit: int,
        after: tuple[Any, ...] | None = None,
        sort: str = "created",
    ) -> tuple[Sequence[Any], int]:
        """A page of the queue (`queue_rows`) and its total under the filters: two statements."""
        statement = queue_rows(organization_id, where, viewer_id, after, sort).offset(offset).limit(limit)
        rows = (await self.session.execute(statement)).all()
        total = await self.session.scalar(queue_total(organization_id, where, viewer_id))
        return rows, total or 0
