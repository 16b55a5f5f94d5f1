"""Products in the database. Who may see a product is app.access.products' to say; every read starts there."""

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
from app.access.products import sees_everything, viewer_sides, visible_products
from app.api.pagination import KeyKind
from app.core.driver_reads import driver_read
from app.core.ids import MAX_ID
from app.core.repository import Repository
from app.derived import claim_search
from app.derived.counter_locks import take_product_counters
from app.derived.counts import products_expiring, row_count
from app.models import Claim, Message, Product, Receipt, ReturnAuthorization, User
from app.models.enums import ClaimStatus
from app.products import expiry
from app.products.warranty import own_end
from app.realtime.forget import forget_claims

BULK_ROWS = 1000  # products per multi-row INSERT of an import

# Lists are plain Core statements over the tables (no ORM work per execution).
_products = Product.__table__.c
_claims = Claim.__table__.c
_users = User.__table__.c

SORT_COLUMNS: dict[str, Any] = {
    # Names sort without regard to case, alike on SQLite and PostgreSQL.
    "name": func.lower(_products.name),
    "brand": func.lower(_products.brand),
    "purchaseDate": _products.purchase_date,
    "warrantyExpiresAt": _products.warranty_expires_on,
    "createdAt": _products.created_at,
}


# Whether the product has a claim that is not closed: a correlated EXISTS, part of the one query that
# loads the products (never one query per product).
HAS_ACTIVE_CLAIM = (
    exists()
    .where(_claims.product_id == _products.id, _claims.status != ClaimStatus.CLOSED)
    .label("has_active_claim")
)


Shape = tuple[bool, bool, bool, bool, bool, bool, str | None]


@dataclass(frozen=True)
class ProductFilter:
    # Whose view: None is every product (the admin list); a user's list shows what they see (their own
    # and the products shared with their households), bound as `viewer_id`.
    viewer_id: int | None = None
    own_only: bool = False  # `owner=me`: only the viewer's own products
    household_id: int | None = None  # only the products shared with this household (within the view)
    brand: str | None = None
    category: str | None = None
    warranty_status: str | None = None
    search: str | None = None

    def restricted_to(self, user: User) -> ProductFilter:
        """This filter, within what `user` may see."""
        if self.viewer_id is not None or sees_everything(user):
            return self
        return replace(self, viewer_id=user.id)

    def shape(self) -> Shape:
        """Which conditions apply: lists of one shape share one statement (whatever the viewer's
        households: they are a subquery of it)."""
        viewer = self.viewer_id is not None
        present = (viewer, viewer and self.own_only, self.household_id is not None)
        facets = (bool(self.brand), bool(self.category), bool(self.search))
        return (*present, *facets, self.warranty_status or None)

    def parameters(self, today: date, expiring_soon_days: int) -> dict[str, Any]:
        """The values of the statement's bound parameters."""
        return {
            "viewer_id": self.viewer_id,
            "household_id": self.household_id,
            "brand": (self.brand or "").lower(),
            "category": (self.category or "").lower(),
            "search": f"%{_escape_like((self.search or '').lower())}%",
            "today": today,
            "soon": today + timedelta(days=expiring_soon_days),
        }


def _sides(shape: Shape) -> list[ColumnElement[bool]]:
    """Whose products the list reads, each side through its own index: every product (no side, the admin
    list), the viewer's own, or their own and the ones shared with them (app.access.products)."""
    viewer, own_only, *_ = shape
    if own_only:
        return [_products.owner_id == bindparam("viewer_id")]
    return list(viewer_sides()) if viewer else []


def _conditions(shape: Shape) -> list[ColumnElement[bool]]:
    """The filters, within whatever side is read."""
    _, _, household, brand, category, search, status = shape
    conditions: list[ColumnElement[bool]] = []
    if household:
        conditions.append(_products.household_id == bindparam("household_id"))
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


# What a list shows, as plain rows: no ORM instances to build for a page. With the active-claim flag and
# the owner's name (`owner_name`, joined in the same statement), added by `_page_statement`.
LIST_COLUMNS = (
    *(_products[name] for name in ("id", "owner_id", "household_id", "name", "brand", "category", "store")),
    *(_products[name] for name in ("purchase_date", "warranty_period_months", "warranty_ends_on", "price")),
    *(_products[name] for name in ("serial_number", "warranty_voided_at", "warranty_void_reason")),
    _products.created_at,
    _products.updated_at,
    _products.warranty_expires_on,
)
OWNER_NAME = _users.name.label("owner_name")


# The kinds of each sort's key (its column, then the id), as a page cursor carries them.
SORT_KEY_KINDS: dict[str, tuple[KeyKind, KeyKind]] = {
    "name": ("str", "int"),
    "brand": ("str", "int"),
    "purchaseDate": ("date", "int"),
    "warrantyExpiresAt": ("date", "int"),
    "createdAt": ("datetime", "int"),
}


@functools.cache
def _page_statement(shape: Shape, order: tuple[str, str], paged: bool, after: bool) -> Select[Any]:
    """Built once per shape, sort and paging: requests only bind their values. `after`: the rows after a
    cursor's key (parameters after_key, after_id), in the sort's order. Paged: parameters offset, limit,
    and window (offset + limit)."""
    sort = ProductSort(*order)
    column = SORT_COLUMNS[sort.field]
    sides = _sides(shape)

    def rows(*side: ColumnElement[bool]) -> Select[Any]:
        statement = select(*LIST_COLUMNS, column.label("sort_key")).where(*side, *_conditions(shape))
        if after:
            key = tuple_(column, _products.id)
            bound = tuple_(bindparam("after_key", type_=column.type), bindparam("after_id"))
            statement = statement.where(key > bound if sort.order == "asc" else key < bound)
        return statement.order_by(*sort.clauses())

    if len(sides) > 1:
        # Each side in its own order (as far as a page reaches), then merged in that order.
        reads = [rows(side) for side in sides]
        if paged:
            reads = [read.limit(bindparam("window")) for read in reads]
        merged = union_all(*(select(read.subquery()) for read in reads)).subquery("visible")
        statement = select(*merged.c).order_by(*_in_order(sort, merged.c.sort_key, merged.c.id))
    else:
        statement = rows(*sides)
    if paged:
        statement = statement.offset(bindparam("offset")).limit(bindparam("limit"))
    # The rows first, then the active-claim flag and the owner's name for those rows only: over a whole
    # table the planner would rather hash every active claim than look up the page's few.
    page = statement.subquery("page")
    active = exists().where(_claims.product_id == page.c.id, _claims.status != ClaimStatus.CLOSED)
    return (
        select(*page.c, active.label("has_active_claim"), OWNER_NAME)
        .join_from(page, User.__table__, _users.id == page.c.owner_id)
        .order_by(*_in_order(sort, page.c.sort_key, page.c.id))
    )


def _in_order(sort: ProductSort, *keys: Any) -> list[UnaryExpression[Any]]:
    return [key.asc() if sort.order == "asc" else key.desc() for key in keys]


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
def _count_statement(shape: Shape) -> Select[Any]:
    """The matches' total: each side counted through its own index, the counts added."""
    sides: list[list[ColumnElement[bool]]] = [[side] for side in _sides(shape)] or [[]]
    counts = [select(func.count(_products.id)).where(*side, *_conditions(shape)) for side in sides]
    if len(counts) == 1:
        return counts[0]
    return select(sum((count.scalar_subquery() for count in counts[1:]), counts[0].scalar_subquery()))


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


@dataclass(frozen=True)
class Found:
    """One product a user may see, as its routes need it: whether it has an active claim and its owner's
    name come with it, in the same statement."""

    product: Product
    has_active_claim: bool
    owner_name: str


class ProductRepository(Repository):
    async def get_visible(self, user: User, product_id: int) -> Found | None:
        """The product, if `user` may see it (app.access.products)."""
        if not 1 <= product_id <= MAX_ID:
            return None
        statement = (
            visible_products(user)
            .join(User, User.id == Product.owner_id)
            .add_columns(HAS_ACTIVE_CLAIM, User.name)
            .where(Product.id == product_id)
        )
        row = (await self.session.execute(statement)).one_or_none()
        return Found(row[0], bool(row[1]), row[2]) if row else None

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
        """Matching products visible to `user`, as rows of LIST_COLUMNS, `has_active_claim`, `owner_name`
        and `sort_key`, in one query; `after` is a cursor's key (the sort column's value, the id): the rows
        after it."""
        where = where.restricted_to(user)
        order = (sort.field, sort.order)
        statement = _page_statement(where.shape(), order, limit is not None, after is not None)
        parameters = where.parameters(today, expiring_soon_days) | {"offset": offset, "limit": limit}
        if limit is not None:
            parameters["window"] = offset + limit
        if after is not None:
            parameters |= {"after_key": after[0], "after_id": after[1]}
        return await driver_read(statement).all(self.session, **parameters)

    async def count(self, user: User, where: ProductFilter, *, today: date, expiring_soon_days: int) -> int:
        where = where.restricted_to(user)
        viewer, _, household, brand, category, search, status = where.shape()
        if not (viewer or household or search) and brand + category + bool(status) <= 1:
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
        if "name" in changes:
            await claim_search.follow_product_name(self.session, product.id)
        return product

    async def file_keys(self, product_id: int) -> list[str]:
        """Storage keys of the product's files: its receipts, its claims' message attachments and return
        labels."""
        claims = select(Claim.id).where(Claim.product_id == product_id)
        receipts = select(Receipt.storage_key.label("key")).where(Receipt.product_id == product_id)
        attachments = select(Message.attachment_key.label("key")).where(
            Message.claim_id.in_(claims), Message.attachment_key.is_not(None)
        )
        labels = select(ReturnAuthorization.label_key.label("key")).where(
            ReturnAuthorization.claim_id.in_(claims), ReturnAuthorization.label_key.is_not(None)
        )
        files = await self.session.scalars(union_all(receipts, attachments, labels))
        return [key for key in files if key]

    async def delete(self, product: Product) -> None:
        """Delete the row; the foreign keys take its receipts, claims, messages and alerts along; its
        claims' events leave the hub's history."""
        await forget_claims(self.session, select(Claim.id).where(Claim.product_id == product.id))
        await self.session.execute(delete(Product).where(Product.id == product.id))
