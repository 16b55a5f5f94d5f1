"""The outbox handlers of the notifications, one per outbox kind this package owns (email and push; the
entry points register them with the worker, app.worker_assembly): load what the notification needs by id (a
short session of its own), then send outside any transaction. Nothing left to send (the row's subject is gone)
is success."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.core.security import hash_token
from app.models import DeviceToken, PasswordResetToken, User
from app.models.enums import OutboxKind
from app.notifications import compose, expiry_notices, rma_email, sla_breach
from app.notifications.email import Email, MailSender, build_message
from app.notifications.household_invitation import invitation_handler
from app.notifications.password_reset import issue_reset_token, reset_email
from app.notifications.push import PushNotification, PushSender, PushTarget
from app.outbox.handlers import Handler
from app.storage.storage import Storage

EmailComposer = Callable[[AsyncSession, dict[str, Any]], Awaitable[Email | None]]
PushComposer = Callable[[AsyncSession, dict[str, Any]], Awaitable[tuple[int, PushNotification] | None]]


class Delivery:
    def __init__(
        self,
        settings: Settings,
        sessionmaker: async_sessionmaker[AsyncSession],
        storage: Storage,
        mailer: MailSender,
        pusher: PushSender,
    ) -> None:
        self.settings = settings
        self.sessionmaker = sessionmaker
        self.storage = storage
        self.mailer = mailer
        self.pusher = pusher

    def handlers(self) -> dict[str, Handler]:
        settings, storage = self.settings, self.storage
        return {
            OutboxKind.EMAIL_CLAIM_MESSAGE: self._email(
                lambda s, p: compose.message_email(s, p, settings, storage)
            ),
            OutboxKind.PUSH_CLAIM_MESSAGE: self._push(compose.message_push),
            OutboxKind.EMAIL_CLAIM_STATUS: self._email(lambda s, p: compose.status_email(s, p, settings)),
            OutboxKind.PUSH_CLAIM_STATUS: self._push(compose.status_push),
            OutboxKind.EMAIL_EXPIRY_ALERT: self._email(
                lambda s, p: expiry_notices.expiry_email(s, p, settings)
            ),
            OutboxKind.PUSH_EXPIRY_ALERT: self._push(expiry_notices.expiry_push),
            OutboxKind.EMAIL_RMA_ISSUED: self._email(
                lambda s, p: rma_email.rma_email(s, p, settings, storage)
            ),
            OutboxKind.EMAIL_SLA_BREACHED: self._email(lambda s, p: sla_breach.breach_email(s, p, settings)),
            OutboxKind.EMAIL_PASSWORD_RESET: self._password_reset,
            OutboxKind.EMAIL_HOUSEHOLD_INVITATION: invitation_handler(
                settings, self.sessionmaker, self.mailer
            ),
        }

    def _email(self, composer: EmailComposer) -> Handler:
        async def handle(payload: dict[str, Any]) -> None:
            async with self.sessionmaker() as session:
                email = await composer(session, payload)
            if email is not None:
                await self.mailer.send(build_message(email, self.settings))

        return handle

    def _push(self, composer: PushComposer) -> Handler:
        async def handle(payload: dict[str, Any]) -> None:
            async with self.sessionmaker() as session:
                found = await composer(session, payload)
                if found is None:
                    return
                user_id, notification = found
                rows = await session.execute(
                    select(DeviceToken.token, DeviceToken.platform).where(DeviceToken.user_id == user_id)
                )
                targets = [PushTarget(token, platform) for token, platform in rows]
            if targets:
                invalid = await self.pusher.send(targets, notification)
                await self._forget_tokens(user_id, invalid)

        return handle

    async def _forget_tokens(self, user_id: int, tokens: set[str]) -> None:
        if not tokens:
            return
        async with self.sessionmaker() as session, session.begin():
            await session.execute(
                delete(DeviceToken).where(DeviceToken.user_id == user_id, DeviceToken.token.in_(tokens))
            )

    async def _password_reset(self, payload: dict[str, Any]) -> None:
        """Sent whatever the user's email setting. The token is minted here, at send time: a retry after a
        failed send mints another (the unsent one simply expires unused)."""
        async with self.sessionmaker() as session, session.begin():
            user = await session.scalar(
                select(User).where(User.email == str(payload["email"]).strip().lower())
            )
            if user is None:
                return  # no account: nothing to send, and the caller was told nothing either
            raw = await issue_reset_token(session, user.id, self.settings)
            if raw is None:
                return  # one was sent less than a minute ago
        try:
            await self.mailer.send(build_message(reset_email(user, raw, self.settings), self.settings))
        except Exception:
            # Unsent: forget it, so the retry is not mistaken for a flood of requests.
            async with self.sessionmaker() as session, session.begin():
                await session.execute(
                    delete(PasswordResetToken).where(PasswordResetToken.token_hash == hash_token(raw))
                )
            raise
