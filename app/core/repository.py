"""The small base every repository shares: a session it flushes but never commits. It knows nothing of
requests: routes get repositories from their domain's dependencies.py, workers build them on their own
sessions."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession


class Repository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session
