"""The one-time codes of the final redirect (app.oidc.login_codes), on the test database."""

from __future__ import annotations

import asyncio

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.errors import ValidationFailed
from app.models import OidcLoginCode
from app.oidc import login_codes
from tests.factories.users import create_user


async def test_a_code_is_stored_hashed_and_spent_once(app: FastAPI) -> None:
    user = await create_user(app)
    async with app.state.sessionmaker() as session, session.begin():
        code = await login_codes.issue(session, user.id)
        assert (await session.scalar(select(OidcLoginCode.code_hash))) != code

    async with app.state.sessionmaker() as session, session.begin():
        assert await login_codes.spend(session, code) == user.id
    async with app.state.sessionmaker() as session, session.begin():
        with pytest.raises(ValidationFailed):
            await login_codes.spend(session, code)


async def test_of_two_racing_exchanges_one_wins(app: FastAPI) -> None:
    user = await create_user(app)
    async with app.state.sessionmaker() as session, session.begin():
        code = await login_codes.issue(session, user.id)

    async def spend() -> bool:
        try:
            async with app.state.sessionmaker() as session, session.begin():
                await login_codes.spend(session, code)
            return True
        except ValidationFailed:
            return False

    assert sorted(await asyncio.gather(spend(), spend())) == [False, True]


async def test_issuing_clears_old_codes(app: FastAPI) -> None:
    user = await create_user(app)
    async with app.state.sessionmaker() as session, session.begin():
        old = await login_codes.issue(session, user.id)
        row = (await session.scalars(select(OidcLoginCode))).one()
        row.expires_at = row.created_at.replace(year=2020)
    async with app.state.sessionmaker() as session, session.begin():
        await login_codes.issue(session, user.id)
        assert await session.scalar(select(func.count()).select_from(OidcLoginCode)) == 1
        with pytest.raises(ValidationFailed):
            await login_codes.spend(session, old)
