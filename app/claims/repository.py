"""Claim reads and writes. Lists select only the columns an item shows, with product, customer email and
message count joined in: two queries (rows and count) whatever the page size."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Select, bindparam, func, select, tuple_
from sqlalchemy.exc import IntegrityError

from app.access.products import require_claimable, visible_to_member
from app.api.pagination import KeyKind
from app.core.business_time import BusinessHours
from app.core.driver_reads import DriverRead
from app.core.ids import MAX_ID
from app.core.repository import Repository
from app.derived.counts import message_count_of_claim, row_count
from app.errors import Conflict
from app.models import (
    Claim,
    ClaimDeadline,
    Message,
    Organization,
    OrganizationBrand,
    OrganizationMember,
    Product,
    ReturnAuthorization,
    User,
)
from app.models.enums import ClaimStatus
from app.organizations.brands import brand_key
from app.organizations.deadlines import Terms


@dataclass(frozen=True)
class ClaimFilter:
    status: str | None = None
    product_id: int | None = None

    def conditions(self) -> list[ColumnElement[bool]]:
        conditions: list[ColumnElement[bool]] = []
        if self.status is not None:
            conditions.append(Claim.status == self.status)
        if self.product_id is not None:
            conditions.append(Claim.product_id == self.product_id)
        return conditions


# A list's cursor key: (created_at, id).
LIST_KEY: tuple[KeyKind, KeyKind] = ("datetime", "int")


def after_key(key: tuple[Any, ...]) -> Any:
    """A (created_at, id) cursor key as bound values of the claims' column types."""
    return tuple_(
        bindparam("after_created", key[0], type_=Claim.created_at.type), bindparam("after_id", key[1])
    )


def already_active() -> Conflict:
    return Conflict("This product already has a claim that is not closed.", code="CLAIM_ALREADY_ACTIVE")


# Kept counts (one claim's is a few rows), not a count of the claim's messages.
_MESSAGE_COUNT = message_count_of_claim()
LIST_COLUMNS = (
    Claim.id,
    Claim.product_id,
    Product.name.label("product_name"),
    Product.brand.label("product_brand"),
    Claim.customer_id,
    User.email.label("customer_email"),
    Claim.status,
    Claim.description,
    Claim.created_at,
    _MESSAGE_COUNT.label("message_count"),
    Claim.organization_id,
    Organization.name.label("organization_name"),
)


# A routed claim's deadlines as `sla_of` (app.claims.schemas) reads them, for an outer join of ClaimDeadline.
SLA_COLUMNS = (
    ClaimDeadline.started_at.label("sla_started_at"),
    ClaimDeadline.first_response_due_at.label("sla_first_response_due_at"),
    ClaimDeadline.first_responded_at.label("sla_first_responded_at"),
    ClaimDeadline.first_response_breached_at.label("sla_first_response_breached_at"),
    ClaimDeadline.resolution_due_at.label("sla_resolution_due_at"),
    ClaimDeadline.resolved_at.label("sla_resolved_at"),
    ClaimDeadline.resolution_breached_at.label("sla_resolution_breached_at"),
    ClaimDeadline.paused_since.label("sla_paused_since"),
    ClaimDeadline.next_due_at.label("sla_next_due_at"),
)


def with_list_joins(statement: Select[Any]) -> Select[Any]:
    """A claims statement of `LIST_COLUMNS`, joined to what an item shows: the product, the customer's
    email and the organization's name (one statement whatever the page size)."""
    return (
        statement.join(Product, Product.id == Claim.product_id)
        .join(User, User.id == Claim.customer_id)
        .outerjoin(Organization, Organization.id == Claim.organization_id)
    )


@dataclass(frozen=True)
class Routing:
    """The organisation a claim goes to (contract 17.6)."""

    organization_id: int
    name: str
    terms: Terms  # its deadlines, which start with the claim


class ClaimRepository(Repository):
    async def list_items(
        self,
        base: Select[Any],
        where: ClaimFilter,
        *,
        offset: int = 0,
        limit: int | None = None,
        after: tuple[Any, ...] | None = None,
        everyone: bool = False,
    ) -> tuple[Sequence[Any], int]:
        """List items of the claims `base` selects (an access statement), newest first, ties by id;
        every match when `limit` is None; `after` (created_at, id): the claims after that key.
        `everyone`: `base` selects every claim (the admin list), whose totals are kept counts."""
        scoped = base.where(*where.conditions())
        page = (
            scoped if after is None else scoped.where(tuple_(Claim.created_at, Claim.id) < after_key(after))
        )
        statement = (
            with_list_joins(page.with_only_columns(*LIST_COLUMNS))
            .order_by(Claim.created_at.desc(), Claim.id.desc())
            .offset(offset)
            .limit(limit)
        )
        rows = (await self.session.execute(statement)).all()
        if limit is None:
            return rows, len(rows)
        if everyone and where.product_id is None:
            return rows, await row_count(self.session, f"claims:{where.status}" if where.status else "claims")
        total = await self.session.scalar(scoped.with_only_columns(func.count(Claim.id)))
        return rows, total or 0

    async def own_product(self, user: User, product_id: int) -> Product | None:
        """The product, if the user may write to it as its customer: their own or one shared with a
        household of theirs (viewers are refused by the caller, `require_claimable`: they see it, so 403).
        Admins file claims on their own and shared products only, as anyone."""
        if not 1 <= product_id <= MAX_ID:
            return None
        product = await self.session.scalar(
            select(Product).where(Product.id == product_id, visible_to_member(user.id))
        )
        if product is not None:
            await require_claimable(self.session, user, product)
        return product

    async def routing_of(self, brand: str) -> Routing | None:
        """The organisation handling `brand`, any case (one read by the brand's key)."""
        rows = await _ROUTING.all(self.session, key=brand_key(brand))
        if not rows:
            return None
        row = rows[0]
        hours = BusinessHours.from_json(row.business_hours)
        return Routing(row.id, row.name, Terms(row.first_response_minutes, row.resolution_minutes, hours))

    async def organization_name(self, organization_id: int) -> str | None:
        """The organisation's name, or None when there is no such organisation."""
        return await self.session.scalar(select(Organization.name).where(Organization.id == organization_id))

    async def supplier_candidate(self, user_id: int) -> tuple[User, int | None] | None:
        """The user and the organisation they work for (None: none), in one read; None for no such user."""
        row = (
            await self.session.execute(
                select(User, OrganizationMember.organization_id)
                .outerjoin(OrganizationMember, OrganizationMember.user_id == User.id)
                .where(User.id == user_id)
            )
        ).first()
        return None if row is None else (row[0], row[1])

    async def has_active_claim(self, product_id: int) -> bool:
        found = await self.session.scalar(
            select(Claim.id)
            .where(Claim.product_id == product_id, Claim.status != ClaimStatus.CLOSED)
            .limit(1)
        )
        return found is not None

    async def add(self, claim: Claim) -> Claim:
        """Insert; 409 CLAIM_ALREADY_ACTIVE when the database's one-active-claim-per-product index says a
        concurrent request got there first (the savepoint keeps the request's transaction usable)."""
        try:
            async with self.session.begin_nested():
                self.session.add(claim)
                await self.session.flush()
        except IntegrityError:
            raise already_active() from None
        return claim

    async def lock(self, claim: Claim) -> Claim:
        """Read the claim again under a row lock (PostgreSQL; SQLite writers are serialized anyway), so
        concurrent changes of one claim apply one after the other, each to the state the other left."""
        await self.session.refresh(claim, with_for_update=True)
        return claim

    async def header_of(self, claim: Claim) -> Any:
        """What the detail shows of the claim's product (`product_id`, `name`, `brand`) and organisation
        (`organization_id`, `organization_name`, null when unrouted) and its deadlines (`SLA_COLUMNS`), in
        one read."""
        rows = await _HEADER.all(
            self.session,
            product_id=claim.product_id,
            organization_id=claim.organization_id,
            claim_id=claim.id,
        )
        return rows[0]  # claims go with their product (ON DELETE CASCADE)

    async def rma_of(self, claim_id: int) -> ReturnAuthorization | None:
        """The claim's return authorisation, if one was issued (one read)."""
        return await self.session.get(ReturnAuthorization, claim_id)

    async def newest_messages(self, claim_id: int) -> tuple[list[Any], bool]:
        """The claim's newest DETAIL_MESSAGES messages, oldest first among them, and whether there are older
        ones: one query, reading at most one row more than it shows, whatever the claim's length."""
        rows = await _NEWEST_MESSAGES.all(self.session, claim_id=claim_id)
        return list(rows[:DETAIL_MESSAGES])[::-1], len(rows) > DETAIL_MESSAGES


_message = Message.__table__.c
DETAIL_MESSAGES = 200  # the claim detail shows the newest 200 messages (docs/api.md §6.3)
# The detail's messages, newest first down the claim's (created_at, id) index, one more than shown so the
# answer knows whether older ones exist; built once (parameter claim_id).
# The claim detail's reads run on the driver's connection (app.core.driver_reads).
_NEWEST_MESSAGES: DriverRead[Any] = DriverRead(
    select(_message.id, _message.sender_id, _message.body.label("message"), _message.created_at)
    .where(_message.claim_id == bindparam("claim_id"))
    .order_by(_message.created_at.desc(), _message.id.desc())
    .limit(DETAIL_MESSAGES + 1)
)
# The detail's product and organisation (parameters product_id, organization_id, which may be null).
_HEADER: DriverRead[Any] = DriverRead(
    select(
        Product.id.label("product_id"),
        Product.name,
        Product.brand,
        Organization.id.label("organization_id"),
        Organization.name.label("organization_name"),
        *SLA_COLUMNS,
    )
    .select_from(Product)
    .outerjoin(Organization, Organization.id == bindparam("organization_id"))
    .outerjoin(ClaimDeadline, ClaimDeadline.claim_id == bindparam("claim_id"))
    .where(Product.id == bindparam("product_id"))
)
# The organisation a brand routes to, by the brand's key (its primary key): parameter key.
_ROUTING: DriverRead[Any] = DriverRead(
    select(
        Organization.id,
        Organization.name,
        Organization.first_response_minutes,
        Organization.resolution_minutes,
        Organization.business_hours,
    )
    .join(OrganizationBrand, OrganizationBrand.organization_id == Organization.id)
    .where(OrganizationBrand.key == bindparam("key"))
)
