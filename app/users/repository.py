from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    String,
    bindparam,
    cast,
    func,
    or_,
    select,
    true,
    tuple_,
    union_all,
)
from sqlalchemy.exc import IntegrityError

from app.access.credentials import user_by_id
from app.core.repository import Repository
from app.errors import Conflict
from app.models import Claim, Message, Product, Receipt, ReturnAuthorization, User, UserIdentity
from app.models.enums import Role
from app.realtime.forget import forget_claims

# The columns a list item shows (docs/api.md §4); lists select only these.
LIST_COLUMNS = (
    User.id,
    User.email,
    User.name,
    User.roles,
    User.notifications_enabled,
    User.email_notifications_enabled,
    User.created_at,
)


def normalize_roles(roles: Sequence[str] | None) -> list[str]:
    """ROLE_USER always, then the others in a stable order, no duplicates."""
    extra = sorted({Role(role) for role in roles or [] if role != Role.USER})
    return [Role.USER, *extra]


def has_role(role: str) -> ColumnElement[bool]:
    """Users whose stored roles hold `role` (the JSON text holds it quoted, on SQLite and PostgreSQL)."""
    if role == Role.USER:
        return true()  # every user has ROLE_USER
    return cast(User.roles, String).like(f'%"{role}"%')


@dataclass(frozen=True)
class UserFilter:
    search: str | None = None
    role: str | None = None

    def conditions(self) -> list[ColumnElement[bool]]:
        conditions: list[ColumnElement[bool]] = []
        if self.search:
            term = self.search.lower()
            conditions.append(
                or_(
                    func.lower(User.name).contains(term, autoescape=True),
                    func.lower(User.email).contains(term, autoescape=True),
                )
            )
        if self.role:
            conditions.append(has_role(self.role))
        return conditions


class UserRepository(Repository):
    async def get(self, user_id: int) -> User | None:
        return await user_by_id(self.session, user_id)

    async def identities(self, user_id: int) -> list[UserIdentity]:
        """The provider accounts linked to the user, oldest link first."""
        found = await self.session.scalars(
            select(UserIdentity).where(UserIdentity.user_id == user_id).order_by(UserIdentity.id)
        )
        return list(found)

    async def get_by_email(self, email: str) -> User | None:
        result = await self.session.execute(select(User).where(User.email == email.strip().lower()))
        return result.scalar_one_or_none()

    async def add(self, *, email: str, name: str, password_hash: str, roles: list[str] | None = None) -> User:
        if await self.get_by_email(email) is not None:
            raise email_taken()
        user = User(email=email.lower(), name=name, password_hash=password_hash, roles=normalize_roles(roles))
        self.session.add(user)
        await self._flush_unique_email()
        return user

    async def _flush_unique_email(self) -> None:
        try:
            # Flushed inside a savepoint so a concurrent write of the same email is a 409, not a 500.
            async with self.session.begin_nested():
                await self.session.flush()
        except IntegrityError:
            raise email_taken() from None

    async def update(self, user: User, changes: dict[str, Any]) -> User:
        """Apply `changes` (attribute -> value); a taken email is a 409."""
        if "email" in changes:
            changes["email"] = changes["email"].lower()
            if changes["email"] != user.email:
                other = await self.get_by_email(changes["email"])
                if other is not None:
                    raise email_taken()
        if "roles" in changes:
            changes["roles"] = normalize_roles(changes["roles"])
        for name, value in changes.items():
            setattr(user, name, value)
        await self._flush_unique_email()
        return user

    async def list_page(
        self, where: UserFilter, *, offset: int, limit: int, after: tuple[Any, ...] | None = None
    ) -> tuple[list[Any], int]:
        """One page of list rows (newest first) and the number of matches: two queries. `after`
        (created_at, id): the users after that key."""
        conditions = where.conditions()
        total = await self.session.scalar(select(func.count()).select_from(User).where(*conditions))
        if after is not None:
            bound = tuple_(bindparam("after_created", after[0], type_=User.created_at.type), after[1])
            conditions.append(tuple_(User.created_at, User.id) < bound)
        rows = await self.session.execute(
            select(*LIST_COLUMNS)
            .where(*conditions)
            .order_by(User.created_at.desc(), User.id.desc())
            .offset(offset)
            .limit(limit)
        )
        return list(rows.mappings()), total or 0

    async def admin_ids_locked(self) -> list[int]:
        """Ids of every admin, locked until the transaction ends (PostgreSQL), so two requests cannot each
        remove one of the last two admins. SQLite serialises writers already."""
        result = await self.session.scalars(select(User.id).where(has_role(Role.ADMIN)).with_for_update())
        return list(result)

    async def owned_file_keys(self, user_id: int) -> list[str]:
        """Storage keys of the files that go with the user's account (receipts of their products,
        attachments and return labels of their claims), in one query."""
        own_products = select(Product.id).where(Product.owner_id == user_id)
        own_claims = self._own_claim_ids(user_id)
        receipts = select(Receipt.storage_key.label("key")).where(Receipt.product_id.in_(own_products))
        attachments = select(Message.attachment_key.label("key")).where(
            Message.claim_id.in_(own_claims), Message.attachment_key.is_not(None)
        )
        labels = select(ReturnAuthorization.label_key.label("key")).where(
            ReturnAuthorization.claim_id.in_(own_claims), ReturnAuthorization.label_key.is_not(None)
        )
        result = await self.session.scalars(union_all(receipts, attachments, labels))
        return [key for key in result if key]

    @staticmethod
    def _own_claim_ids(user_id: int) -> Select[Any]:
        """The claims that go with the account: its own, and those on its products."""
        own_products = select(Product.id).where(Product.owner_id == user_id)
        return select(Claim.id).where(or_(Claim.customer_id == user_id, Claim.product_id.in_(own_products)))

    async def supplied_claims(self, user_id: int) -> list[int]:
        """Ids of the claims the user is the assigned supplier of."""
        return list(await self.session.scalars(select(Claim.id).where(Claim.supplier_id == user_id)))

    async def delete(self, user: User) -> None:
        """Delete the row; the foreign keys remove the rest (products, receipts, claims, messages, tokens)
        and null the references that stay (supplier of other claims, sender of other messages). The
        events of the claims that go leave the hub's history."""
        await forget_claims(self.session, self._own_claim_ids(user.id))
        await self.session.delete(user)
        await self.session.flush()


def email_taken() -> Conflict:
    return Conflict("An account with this email already exists.", code="EMAIL_TAKEN")
