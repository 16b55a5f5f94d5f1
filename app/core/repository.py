"""The small base every repository shares: a session it flushes but never commits."""

from __future__ import annotations

from typing import Self

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.db import SessionDep


class Repository:
    def __init__(self, session: SessionDep) -> None:
        self.session: AsyncSession = session

    @classmethod
    async def dependency(cls, session: SessionDep) -> Self:
        """`Depends(XRepository.dependency)`: built on the event loop. A class given to Depends directly
        is called in FastAPI's threadpool, one thread hop per request."""
        return cls(session)
