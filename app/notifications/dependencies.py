"""The notifications routes' own request dependencies. Only route modules import it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from app.api.dependencies import repository
from app.notifications.channels_repository import NotificationTargetRepository, WebPushRepository
from app.notifications.repository import DeviceTokenRepository
from app.outbox.repository import OutboxRepository

DeviceTokenRepo = Annotated[DeviceTokenRepository, Depends(repository(DeviceTokenRepository))]
OutboxRepo = Annotated[OutboxRepository, Depends(repository(OutboxRepository))]
WebPushRepo = Annotated[WebPushRepository, Depends(repository(WebPushRepository))]
TargetRepo = Annotated[NotificationTargetRepository, Depends(repository(NotificationTargetRepository))]
