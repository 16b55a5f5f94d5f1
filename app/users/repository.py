from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from app.core.repository import Repository
from app.errors import Conflict
from app.models import ROLE_USER, User


def normalize_roles(roles: list[str] | None) -> list[str]:
    """ROLE_USER always, then the others in a stable order, no duplicates."""
    extra = sorted({role for role in roles or [] if role != ROLE_USER})
    return [ROLE_USER, *extra]


class UserRepository(Repository):
    async def get(self, user_id: int) -> User | None:
        return await self.session.get(User, user_id)

    async def get_by_email(self, email: str) -> User | None:
        result = await self.session.execute(select(User).where(User.email == email.strip().lower()))
        return result.scalar_one_or_none()

    async def add(self, *, email: str, name: str, password_hash: str, roles: list[str] | None = None) -> User:
        if await self.get_by_email(email) is not None:
            raise email_taken()
        user = User(email=email.lower(), name=name, password_hash=password_hash, roles=normalize_roles(roles))
        self.session.add(user)
        try:
            # Flushed inside a savepoint so a concurrent registration of the same email is a 409, not a 500.
            async with self.session.begin_nested():
                await self.session.flush()
        except IntegrityError:
            raise email_taken() from None
        return user


def email_taken() -> Conflict:
    return Conflict("An account with this email already exists.", code="EMAIL_TAKEN")


UserRepo = Annotated[UserRepository, Depends(UserRepository)]
