"""The small base every repository shares: a session it flushes but never commits."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.db import SessionDep


class Repository:
    def __init__(self, session: SessionDep) -> None:
        self.session: AsyncSession = session
