"""Users and their credentials."""

from __future__ import annotations

import itertools
from typing import Any

from fastapi import FastAPI

from app.core.security import create_access_token
from app.models import User
from app.models.enums import Role
from app.users.repository import normalize_roles

DEFAULT_PASSWORD = "correct horse battery"
_counter = itertools.count(1)


async def create_user(
    app: FastAPI,
    *,
    email: str | None = None,
    password: str = DEFAULT_PASSWORD,
    name: str | None = None,
    roles: list[str] | None = None,
    **fields: Any,
) -> User:
    number = next(_counter)
    async with app.state.sessionmaker() as session, session.begin():
        user = User(
            email=(email or f"user{number}@example.com").lower(),
            name=name or f"User {number}",
            password_hash=app.state.password_hasher.hash_sync(password),
            roles=normalize_roles(roles),
            **fields,
        )
        session.add(user)
    return user


async def create_admin(app: FastAPI, **kwargs: Any) -> User:
    return await create_user(app, roles=[Role.ADMIN], **kwargs)


async def create_supplier(app: FastAPI, **kwargs: Any) -> User:
    return await create_user(app, roles=[Role.SUPPLIER], **kwargs)


def auth_headers(app: FastAPI, user: User) -> dict[str, str]:
    """A valid access token for `user`, as the login would issue it."""
    token = create_access_token(app.state.settings, user.id, normalize_roles(user.roles))
    return {"Authorization": f"Bearer {token}"}
