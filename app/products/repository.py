"""Products in the database. Who may see a product is said once, in `visible_to`; every read starts there."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Annotated, Any, Literal

from fastapi import Depends
from sqlalchemy import ColumnElement, Select, delete, exists, func, or_, select, union_all
from sqlalchemy.sql.elements import UnaryExpression

from app.claims.access import visible_claims
from app.core.cache import EVERYTHING, invalidate
from app.core.repository import Repository
from app.models import ROLE_ADMIN, Claim, Message, Product, Receipt, User
from app.products.warranty import expiry_date

PRODUCTS_ALL = "products:all"
MAX_ID = 2**31 - 1

SortField = Literal["name", "brand", "purchaseDate", "warrantyExpiresAt", "createdAt"]
SORT_COLUMNS: dict[str, Any] = {
    # Names sort without regard to case, alike on SQLite and PostgreSQL.
    "name": func.lower(Product.name),
    "brand": func.lower(Product.brand),
    "purchaseDate": Product.purchase_date,
    "warrantyExpiresAt": Product.warranty_expires_on,
    "createdAt": Product.created_at,
}


def products_of(owner_id: int) -> str:
    """The page-cache scope of one owner's product lists."""
    return f"products:user:{owner_id}"


def visible_to(user: User) -> Select[Product]:
    """The products `user` may see: their own, or every product for an admin."""
    statement = select(Product)
    if ROLE_ADMIN in user.effective_roles:
        return statement
    return statement.where(Product.owner_id == user.id)


def has_active_claim() -> ColumnElement[bool]:
    """Whether the product has a claim that is not closed: a correlated EXISTS, part of the one query
    that loads the products (never one query per product)."""
    return exists().where(Claim.product_id == Product.id, Claim.status != "closed").label("has_active_claim")


@dataclass(frozen=True)
class ProductFilter:
    owner_id: int | None = None  # None: every owner (the admin list)
    brand: str | None = None
    category: str | None = None
    warranty_status: str | None = None
    search: str | None = None

    def conditions(self, today: date, expiring_soon_days: int) -> list[ColumnElement[bool]]:
        conditions: list[ColumnElement[bool]] = []
        if self.owner_id is not None:
            conditions.append(Product.owner_id == self.owner_id)
        if self.brand:
            conditions.append(func.lower(Product.brand) == self.brand.lower())
        if self.category:
            conditions.append(func.lower(Product.category) == self.category.lower())
        if self.search:
            term = self.search.lower()
            conditions.append(
                or_(
                    *(
                        func.lower(column).contains(term, autoescape=True)
                        for column in (Product.name, Product.brand, Product.serial_number)
                    )
                )
            )
        if self.warranty_status:
            conditions.append(status_condition(self.warranty_status, today, expiring_soon_days))
        return conditions


def status_condition(status: str, today: date, expiring_soon_days: int) -> ColumnElement[bool]:
    """warranty_status() as SQL on the stored expiry day, so filtered pages count right."""
    soon = today + timedelta(days=expiring_soon_days)
    if status == "expired":
        return Product.warranty_expires_on < today
    if status == "expiring_soon":
        return Product.warranty_expires_on.between(today, soon)
    return Product.warranty_expires_on > soon


@dataclass(frozen=True)
class ProductSort:
    field: str = "createdAt"
    order: str = "desc"

    def clauses(self) -> list[UnaryExpression[Any]]:
        """The sort column, then the id in the same direction: ties have a stable order."""
        column = SORT_COLUMNS[self.field]
        if self.order == "asc":
            return [column.asc(), Product.id.asc()]
        return [column.desc(), Product.id.desc()]


class ProductRepository(Repository):
    async def get_visible(self, user: User, product_id: int) -> tuple[Product, bool] | None:
        """The product and whether it has an active claim, if `user` may see it."""
        if not 1 <= product_id <= MAX_ID:
            return None
        statement = visible_to(user).add_columns(has_active_claim()).where(Product.id == product_id)
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
    ) -> list[tuple[Product, bool]]:
        """Matching products (visible to `user`) with their active-claim flag, in one query."""
        statement = (
            visible_to(user)
            .add_columns(has_active_claim())
            .where(*where.conditions(today, expiring_soon_days))
            .order_by(*sort.clauses())
            .offset(offset)
            .limit(limit)
        )
        rows = await self.session.execute(statement)
        return [(product, bool(active)) for product, active in rows]

    async def count(self, user: User, where: ProductFilter, *, today: date, expiring_soon_days: int) -> int:
        statement = (
            visible_to(user)
            .with_only_columns(func.count(Product.id))
            .where(*where.conditions(today, expiring_soon_days))
        )
        return await self.session.scalar(statement) or 0

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
        product.warranty_expires_on = expiry_date(product.purchase_date, product.warranty_period_months)
        self.session.add(product)
        await self.session.flush()
        invalidate(self.session, products_of(owner.id), PRODUCTS_ALL)
        return product

    async def update(self, product: Product, changes: dict[str, Any]) -> Product:
        """Apply `changes` (attribute -> value) and keep the stored expiry day in step."""
        for name, value in changes.items():
            setattr(product, name, value)
        product.warranty_expires_on = expiry_date(product.purchase_date, product.warranty_period_months)
        await self.session.flush()
        invalidate(self.session, products_of(product.owner_id), PRODUCTS_ALL)
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
        """Delete the row; the foreign keys take its receipts, claims, messages and alerts along. Claims
        and messages leave every kind of page, so every cached page goes."""
        await self.session.execute(delete(Product).where(Product.id == product.id))
        invalidate(self.session, EVERYTHING)


ProductRepo = Annotated[ProductRepository, Depends(ProductRepository.dependency)]
