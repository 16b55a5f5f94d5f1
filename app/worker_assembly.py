"""The outbox worker as the app and `warranty worker` run it: the worker (app.outbox, which knows no kind)
with every receiver's handlers (notifications: email and push; webhooks: webhook.deliver), the daily expiry
alerts, the deadline breach job every `sla_check_interval` seconds (app.organizations.breaches), and a
claim's timeline told of its notifications' outcomes. `worker_lifespan` starts and stops it
with the app (unless WARRANTY_RUN_WORKER=false, for deployments that run `warranty worker` on its own)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.core.db import CommitHooks
from app.notifications.channel_handlers import ChannelDelivery
from app.notifications.channel_keys import ensure_channel_keys
from app.notifications.email import MailSender, mail_sender
from app.notifications.outbox_handlers import Delivery
from app.notifications.push import PushSender, push_sender
from app.organizations.breaches import record_breaches
from app.outbox.worker import OutboxWorker
from app.products.expiry_alerts import send_expiry_alerts
from app.storage.storage import Storage
from app.storage.storage_backend import create_storage
from app.timeline.record import notification_finished
from app.webhooks.delivery import WebhookDeliverer

STOP_GRACE = 10.0  # seconds a delivery in flight gets to finish at shutdown


def build_worker(
    settings: Settings,
    sessionmaker: async_sessionmaker[AsyncSession],
    storage: Storage | None = None,
    *,
    mailer: MailSender | None = None,
    pusher: PushSender | None = None,
    webhooks: WebhookDeliverer | None = None,
) -> OutboxWorker:
    """The worker with the configured senders (tests may pass their own)."""
    delivery = Delivery(
        settings,
        sessionmaker,
        storage or create_storage(settings),
        mailer or mail_sender(settings),
        pusher or push_sender(settings),
    )

    async def daily() -> None:
        await send_expiry_alerts(sessionmaker, settings)

    async def breaches() -> None:
        await record_breaches(sessionmaker, postgresql=not settings.is_sqlite)

    webhooks = webhooks or WebhookDeliverer(settings, sessionmaker)
    ensure_channel_keys(settings)  # a VAPID or notification URL key that is not one stops the start
    channels = ChannelDelivery(settings, sessionmaker)  # Web Push and notification URLs
    handlers = {**delivery.handlers(), **channels.handlers(), **webhooks.handlers()}
    timeouts = {  # each transport's timeout per network operation, by channel
        "email": settings.smtp_timeout,
        "push": settings.push_timeout,
        "webhook": settings.webhook_timeout,
        "webpush": settings.web_push_timeout,
        "apprise": settings.notify_timeout,
    }
    return OutboxWorker(
        settings,
        sessionmaker,
        handlers,
        daily=daily,
        finished=notification_finished,
        operation_timeouts=timeouts,
        periodic=[(settings.sla_check_interval, breaches)],
    )


@asynccontextmanager
async def worker_lifespan(app: FastAPI, settings: Settings, hooks: CommitHooks) -> AsyncIterator[None]:
    if not settings.run_worker:
        yield
        return
    pusher = push_sender(settings)  # one HTTP client for the worker's lifetime
    worker = build_worker(settings, app.state.sessionmaker, app.state.storage, pusher=pusher)
    app.state.outbox_worker = worker
    hooks.wake_outbox = worker.wake
    task = asyncio.create_task(worker.run_forever(), name="outbox-worker")
    try:
        yield
    finally:
        hooks.wake_outbox = None
        worker.stop()
        try:
            await asyncio.wait_for(task, timeout=STOP_GRACE)
        except TimeoutError:
            # Cancelled mid-delivery: the row's lease runs out and it is delivered again later.
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await pusher.aclose()
