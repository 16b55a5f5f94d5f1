"""The worker's handler for `webhook.deliver` outbox rows: load the delivery and its endpoint (a short
session of its own), sign with a fresh timestamp and the delivery's fixed webhook-id, post outside any
transaction, and note what the attempt saw on the delivery. The worker retries failures with backoff
until they are failed for good; a refused destination fails at once (an admin fixes it, then retries)."""

from __future__ import annotations

import ssl
from typing import Any

import httpx
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.core.addresses import Refused
from app.core.clock import utc_now
from app.models import WebhookDelivery, WebhookEndpoint
from app.models.enums import OutboxKind
from app.outbox.handlers import Handler, PermanentFailure, Skipped
from app.webhooks.sender import Unsuccessful, post
from app.webhooks.signing import signed_headers

_LOAD = select(WebhookDelivery.id, WebhookDelivery.body, WebhookEndpoint.url, WebhookEndpoint.secret).join(
    WebhookEndpoint, WebhookEndpoint.id == WebhookDelivery.endpoint_id
)


class WebhookDeliverer:
    def __init__(
        self,
        settings: Settings,
        sessionmaker: async_sessionmaker[AsyncSession],
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.settings = settings
        self.sessionmaker = sessionmaker
        self.tls = tls  # tests trust their own certificate authority; None: the system's trust store

    def handlers(self) -> dict[str, Handler]:
        return {OutboxKind.WEBHOOK_DELIVER: self.deliver}

    async def deliver(self, payload: dict[str, Any]) -> None:
        message_id = str(payload.get("messageId"))
        async with self.sessionmaker() as session:
            row = (await session.execute(_LOAD.where(WebhookDelivery.message_id == message_id))).first()
        if row is None:
            raise Skipped("the webhook endpoint was deleted")
        body = row.body.encode()
        headers = signed_headers(row.secret, message_id, int(utc_now().timestamp()), body)
        timeout = self.settings.webhook_timeout
        try:
            answer = await post(
                row.url,
                body,
                headers,
                allow_private=self.settings.webhook_allow_private,
                seconds=timeout,
                tls=self.tls,
            )
        except Refused as exc:
            await self._note(row.id, None, f"Refused: {exc}")
            raise PermanentFailure(f"refused: the URL {exc}") from None
        except Unsuccessful as exc:
            await self._note(row.id, exc.answer.status, str(exc))
            raise
        except TimeoutError:
            await self._note(row.id, None, f"TimeoutError: no answer within {timeout} s")
            raise
        except httpx.HTTPError as exc:
            await self._note(row.id, None, f"{type(exc).__name__}: {exc}"[:2000])
            raise
        await self._note(row.id, answer.status, None, delivered=True)

    async def _note(
        self, delivery_id: int, status: int | None, error: str | None, delivered: bool = False
    ) -> None:
        now = utc_now()
        async with self.sessionmaker() as session, session.begin():
            await session.execute(
                update(WebhookDelivery)
                .where(WebhookDelivery.id == delivery_id)
                .values(
                    attempts=WebhookDelivery.attempts + 1,
                    last_attempt_at=now,
                    response_status=status,
                    last_error=error,
                    delivered_at=now if delivered else None,
                )
            )
