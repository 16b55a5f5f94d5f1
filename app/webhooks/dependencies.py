"""The webhooks routes' own request dependencies. Only route modules import it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from app.api.dependencies import repository
from app.webhooks.repository import DeliveryRepository, WebhookRepository

DeliveryRepo = Annotated[DeliveryRepository, Depends(repository(DeliveryRepository))]
WebhookRepo = Annotated[WebhookRepository, Depends(repository(WebhookRepository))]
