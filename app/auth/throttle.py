"""Login throttling over a sliding window, counted in the database so every process sees the same count."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.core.clock import utc_now
from app.errors import TooManyRequests
from app.models import LoginFailure


class LoginThrottle:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.window = timedelta(seconds=settings.login_failure_window)
        self.per_email = settings.login_max_failures_per_email
        self.per_client = settings.login_max_failures_per_client

    async def check(self, email: str, client: str) -> None:
        """429 while the email (from this client) or the client as a whole has too many recent failures."""
        since = utc_now() - self.window
        by_email = select(LoginFailure.created_at).where(
            LoginFailure.email == email, LoginFailure.client == client, LoginFailure.created_at > since
        )
        by_client = select(LoginFailure.created_at).where(
            LoginFailure.client == client, LoginFailure.created_at > since
        )
        for statement, limit in ((by_email, self.per_email), (by_client, self.per_client)):
            unblocked_at = await self._unblocked_at(statement, limit)
            if unblocked_at is not None:
                wait = math.ceil((unblocked_at - utc_now()).total_seconds())
                raise TooManyRequests(wait, "Too many failed sign-ins; try again later.")

    async def _unblocked_at(self, statement: object, limit: int) -> datetime | None:
        # The newest `limit` failures: once the oldest of them leaves the window, a try is allowed again.
        recent = (
            await self.session.scalars(statement.order_by(LoginFailure.created_at.desc()).limit(limit))  # type: ignore[attr-defined]
        ).all()
        if len(recent) < limit:
            return None
        return recent[-1] + self.window

    def record_failure(self, email: str, client: str) -> None:
        self.session.add(LoginFailure(email=email, client=client))

    async def clear(self, email: str, client: str) -> None:
        await self.session.execute(
            delete(LoginFailure).where(LoginFailure.email == email, LoginFailure.client == client)
        )
