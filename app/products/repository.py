"""Products in the database. Who may see a product is said once, in `visible_to`; every read starts there."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Row,
    Select,
    and_,
    bindparam,
    delete,
    exists,
    func,
    insert,
    or_,
    select,
    tuple_,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import UnaryExpression

from app.access.claims import visible_claims
from app.api.pagination import KeyKind
from app.core.driver_reads import driver_read
from app.core.ids import MAX_ID
from app.core.repository import Repository
from app.derived.counter_locks import take_product_counters
from app.derived.counts import products_expiring, row_count
from app.models import Claim, Message, Product, Receipt, User
from app.models.enums import ClaimStatus, Role
from app.products import expiry
from app.products.warranty import own_end
from app.realtime.forget import forget_claims

BULK_ROWS = 1000  # products per multi-row INSERT of an import

# Lists are plain Core statements over the tables (no ORM work per execution).
_products = Product.__table__.c
_claims = Claim.__table__.c

SORT_COLUMNS: dict[str, Any] = {
    # Names sort without regard to case, alike on SQLite and PostgreSQL.
    "name": func.lower(_products.name),
    "brand": func.lower(_products.brand),
    "purchaseDate": _products.purchase_date,
    "warrantyExpiresAt": _products.warranty_expires_on,
    "createdAt": _products.created_at,
}


def visible_owner(user: User) -> int | None:
    """Whose products `user` may see: their own, or every owner's (None) for an admin."""
    return None if Role.ADMIN in user.effective_roles else user.id


def visible_to(user: User) -> Select[Product]:
    """The products `user` may see."""
    owner = visible_owner(user)
    return select(Product) if owner is None else select(Product).where(Product.owner_id == owner)


# Whether the product has a claim that is not closed: a correlated EXISTS, part of the one query that
# loads the products (never one query per product).
HAS_ACTIVE_CLAIM = (
    exists()
    .where(_claims.product_id == _products.id, _claims.status != ClaimStatus.CLOSED)
    .label("has_active_claim")
)


@dataclass(frozen=True)
class ProductFilter:
    owner_id: int | None = None  # None: every owner (the admin list)
    brand: str | None = None
    category: str | None = None
    warranty_status: str | None = None
    search: str | None = None

    def restricted_to(self, user: User) -> ProductFilter:
        """This filter, within what `user` may see."""
        return self if self.owner_id is not None else replace(self, owner_id=visible_owner(user))

    def shape(self) -> tuple[bool, bool, bool, bool, str | None]:
        """Which conditions apply: lists of one shape share one statement."""
        present = (self.owner_id is not None, bool(self.brand), bool(self.category), bool(self.search))
        return (*present, self.warranty_status or None)

    def parameters(self, today: date, expiring_soon_days: int) -> dict[str, Any]:
        """The values of the statement's bound parameters."""
        return {
            "owner_id": self.owner_id,
            "brand": (self.brand or "").lower(),
            "category": (self.category or "").lower(),
            "search": f"%{_escape_like((self.search or '').lower())}%",
            "today": today,
            "soon": today + timedelta(days=expiring_soon_days),
        }


def _conditions(shape: tuple[bool, bool, bool, bool, str | None]) -> list[ColumnElement[bool]]:
    owner, brand, category, search, status = shape
    conditions: list[ColumnElement[bool]] = []
    if owner:
        conditions.append(_products.owner_id == bindparam("owner_id"))
    if brand:
        conditions.append(func.lower(_products.brand) == bindparam("brand"))
    if category:
        conditions.append(func.lower(_products.category) == bindparam("category"))
    if search:
        columns = (_products.name, _products.brand, _products.serial_number)
        conditions.append(or_(*(func.lower(c).like(bindparam("search"), escape="/") for c in columns)))
    if status:
        conditions.append(_status_condition(status))
    return conditions


def _status_condition(status: str) -> ColumnElement[bool]:
    """The status of ProductOut.of as SQL on the stored expiry day (parameters `today`, `soon`), so filtered
    pages count right. A voided warranty is `void` whatever its dates."""
    expires, voided_at = _products.warranty_expires_on, _products.warranty_voided_at
    if status == "void":
        return voided_at.is_not(None)
    if status == "expired":
        in_status = expires < bindparam("today")
    elif status == "expiring_soon":
        in_status = expires.between(bindparam("today"), bindparam("soon"))
    else:
        in_status = expires > bindparam("soon")
    return and_(voided_at.is_(None), in_status)


def _escape_like(term: str) -> str:
    return term.replace("/", "//").replace("%", "/%").replace("_", "/_")


# What a list shows, as plain rows: no ORM instances to build for a page.
LIST_COLUMNS = (
    *(_products[name] for name in ("id", "name", "brand", "category", "store", "purchase_date")),
    *(_products[name] for name in ("warranty_period_months", "warranty_ends_on", "price", "serial_number")),
    *(_products[name] for name in ("warranty_voided_at", "warranty_void_reason", "created_at")),
    _products.updated_at,
    _products.warranty_expires_on,
    HAS_ACTIVE_CLAIM,
)


# The kinds of each sort's key (its column, then the id), as a page cursor carries them.
SORT_KEY_KINDS: dict[str, tuple[KeyKind, KeyKind]] = {
    "name": ("str", "int"),
    "brand": ("str", "int"),
    "purchaseDate": ("date", "int"),
    "warrantyExpiresAt": ("date", "int"),
    "createdAt": ("datetime", "int"),
}


@functools.cache
def _page_statement(shape: tuple[Any, ...], order: tuple[str, str], paged: bool, after: bool) -> Select[Any]:
    """Built once per shape, sort and paging: requests only bind their values. `after`: the rows after a
    cursor's key (parameters after_key, after_id), in the sort's order."""
    sort = ProductSort(*order)
    column = SORT_COLUMNS[sort.field]
    statement = select(*LIST_COLUMNS, column.label("sort_key")).where(*_conditions(shape))
    if after:
        key = tuple_(column, _products.id)
        bound = tuple_(bindparam("after_key", type_=column.type), bindparam("after_id"))
        statement = statement.where(key > bound if sort.order == "asc" else key < bound)
    statement = statement.order_by(*sort.clauses())
    if not paged:
        return statement
    # The page's rows first, then the active-claim flag for those rows only: over a whole table the
    # planner would rather hash every active claim than look up the page's few.
    shown = [column for column in LIST_COLUMNS if column is not HAS_ACTIVE_CLAIM]
    page = (
        statement.with_only_columns(*shown, column.label("sort_key"))
        .offset(bindparam("offset"))
        .limit(bindparam("limit"))
        .subquery("page")
    )
    active = exists().where(_claims.product_id == page.c.id, _claims.status != ClaimStatus.CLOSED)
    keys = (page.c.sort_key, page.c.id)
    return select(*page.c, active.label("has_active_claim")).order_by(
        *(key.asc() if sort.order == "asc" else key.desc() for key in keys)
    )


async def _kept_count(session: AsyncSession, where: ProductFilter, today: date, soon: date) -> int:
    """The total of every product, or of one brand, one category or one warranty status (the ranges of
    expiry days `_status_condition` filters on; a voided warranty counts as `void`, not on its day), from
    the counts the database keeps."""
    if where.brand:
        return await row_count(session, f"products:brand:{where.brand.lower()}")
    if where.category:
        return await row_count(session, f"products:category:{where.category.lower()}")
    if where.warranty_status == "void":
        return await row_count(session, "products:void")
    if where.warranty_status == "expired":
        return await products_expiring(session, None, today - timedelta(days=1))
    if where.warranty_status == "expiring_soon":
        return await products_expiring(session, today, soon)
    if where.warranty_status == "active":
        return await products_expiring(session, soon + timedelta(days=1), None)
    return await row_count(session, "products")


@functools.cache
def _count_statement(shape: tuple[Any, ...]) -> Select[Any]:
    return select(func.count(_products.id)).where(*_conditions(shape))


@dataclass(frozen=True)
class ProductSort:
    field: str = "createdAt"
    order: str = "desc"

    def clauses(self) -> list[UnaryExpression[Any]]:
        """The sort column, then the id in the same direction: ties have a stable order."""
        column = SORT_COLUMNS[self.field]
        if self.order == "asc":
            return [column.asc(), _products.id.asc()]
        return [column.desc(), _products.id.desc()]


def _keep_expiry(product: Product) -> None:
    """The stored expiry day of a new product: its own end (no claim has extended it yet)."""
    product.warranty_expires_on = own_end(
        product.purchase_date, product.warranty_period_months, product.warranty_ends_on
    )


class ProductRepository(Repository):
    async def get_visible(self, user: User, product_id: int) -> tuple[Product, bool] | None:
        """The product and whether it has an active claim, if `user` may see it."""
        if not 1 <= product_id <= MAX_ID:
            return None
        statement = visible_to(user).add_columns(HAS_ACTIVE_CLAIM).where(Product.id == product_id)
        row = (await self.session.execute(statement)).one_or_none()
        return (row[0], bool(row[1])) if row else None

    async def page(
        self,
        user: User,
        where: ProductFilter,
        sort: ProductSort,
        *,
        today: date,
        expiring_soon_days: int,
        offset: int = 0,
        limit: int | None = None,
        after: tuple[Any, ...] | None = None,
    ) -> list[Row[Any]]:
        """Matching products visible to `user`, as rows of LIST_COLUMNS and their `sort_key`, in one query;
        `after` is a cursor's key (the sort column's value, the id): the rows after it."""
        where = where.restricted_to(user)
        order = (sort.field, sort.order)
        statement = _page_statement(where.shape(), order, limit is not None, after is not None)
        parameters = where.parameters(today, expiring_soon_days) | {"offset": offset, "limit": limit}
        if after is not None:
            parameters |= {"after_key": after[0], "after_id": after[1]}
        return await driver_read(statement).all(self.session, **parameters)

    async def count(self, user: User, where: ProductFilter, *, today: date, expiring_soon_days: int) -> int:
        where = where.restricted_to(user)
        owner, brand, category, search, status = where.shape()
        if not (owner or search) and brand + category + bool(status) <= 1:
            # Every product, or one facet of them: a kept count, not a count of the table.
            return await _kept_count(self.session, where, today, today + timedelta(days=expiring_soon_days))
        statement = _count_statement(where.shape())
        parameters = where.parameters(today, expiring_soon_days)
        return await driver_read(statement).scalar(self.session, **parameters) or 0

    async def claims(self, user: User, product_id: int) -> list[Any]:
        """The product's claims the user may see (id, status, description, createdAt), oldest first."""
        statement = (
            visible_claims(user)
            .with_only_columns(Claim.id, Claim.status, Claim.description, Claim.created_at)
            .where(Claim.product_id == product_id)
            .order_by(Claim.created_at, Claim.id)
        )
        return list((await self.session.execute(statement)).mappings())

    async def add(self, owner: User, fields: dict[str, Any]) -> Product:
        product = Product(owner_id=owner.id, **fields)
        _keep_expiry(product)
        self.session.add(product)
        await self.session.flush()
        return product

    async def add_many(self, owner: User, rows: list[dict[str, Any]]) -> None:
        """Create many products of one owner (each `fields` as `add` takes them) with executemany
        INSERTs of BULK_ROWS rows: no round trip per product, and no ORM objects kept. The counter rows
        they add to are taken first, in one order, so imports at once do not deadlock."""
        values = []
        for fields in rows:
            product = Product(owner_id=owner.id, **fields)  # transient: computes what `add` stores
            _keep_expiry(product)
            values.append(
                {**fields, "owner_id": owner.id, "warranty_expires_on": product.warranty_expires_on}
            )
        facets = {(row["brand"], row["category"], row["warranty_expires_on"]) for row in values}
        await take_product_counters(self.session, facets)
        for start in range(0, len(values), BULK_ROWS):
            await self.session.execute(insert(Product), values[start : start + BULK_ROWS])

    async def update(self, product: Product, changes: dict[str, Any]) -> Product:
        """Apply `changes` (attribute -> value) and keep the stored expiry day in step."""
        await expiry.lock(self.session, product)
        for name, value in changes.items():
            setattr(product, name, value)
        await expiry.keep_in_step(self.session, product)
        await self.session.flush()
        return product

    async def file_keys(self, product_id: int) -> list[str]:
        """Storage keys of the product's files: its receipts and its claims' message attachments."""
        claims = select(Claim.id).where(Claim.product_id == product_id)
        receipts = select(Receipt.storage_key.label("key")).where(Receipt.product_id == product_id)
        attachments = select(Message.attachment_key.label("key")).where(
            Message.claim_id.in_(claims), Message.attachment_key.is_not(None)
        )
        return [key for key in await self.session.scalars(union_all(receipts, attachments)) if key]

    async def delete(self, product: Product) -> None:
        """Delete the row; the foreign keys take its receipts, claims, messages and alerts along; its
        claims' events leave the hub's history."""
        await forget_claims(self.session, select(Claim.id).where(Claim.product_id == product.id))
        await self.session.execute(delete(Product).where(Product.id == product.id))
