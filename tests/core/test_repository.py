"""The base every repository shares (app.core.repository): it works in the caller's session and
transaction, and commits nothing itself."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import func, select

from app.core.repository import Repository
from app.models import CacheInvalidation


class Scopes(Repository):
    """A repository as the domains write theirs: adds and flushes, never commits."""

    async def add(self, scope: str) -> None:
        self.session.add(CacheInvalidation(scope=scope))
        await self.session.flush()

    async def count(self) -> int:
        return int(await self.session.scalar(select(func.count()).select_from(CacheInvalidation)) or 0)


async def test_a_repository_writes_in_the_callers_transaction_and_the_caller_commits(app: FastAPI) -> None:
    async with app.state.sessionmaker() as session:
        scopes = Scopes(session)
        assert scopes.session is session
        await scopes.add("products:all")
        assert await scopes.count() == 1  # flushed: the caller's transaction sees it
        await session.rollback()  # not committed: the caller's rollback takes it back
        assert await scopes.count() == 0

        await scopes.add("users:all")
        await session.commit()
    async with app.state.sessionmaker() as elsewhere:
        assert await Scopes(elsewhere).count() == 1
