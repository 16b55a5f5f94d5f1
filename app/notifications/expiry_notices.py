"""The expiry alert's email and push (the job that records them: app.products.expiry_alerts), composed at
send time from the product and its owner, or nothing when the alert has gone stale."""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.core.clock import utc_today
from app.models import Product, User
from app.notifications.email import Email
from app.notifications.push import PushNotification
from app.notifications.render import render


def _days_left(expires_on: date, today: date) -> str:
    days = (expires_on - today).days
    return "today" if days == 0 else "tomorrow" if days == 1 else f"in {days} days"


async def _product_and_owner(session: AsyncSession, payload: dict[str, Any]) -> tuple[Product, User] | None:
    """None when the alert is stale: product or owner gone, dates edited (or extended) since, the warranty
    voided since, or already expired."""
    product = await session.get(Product, int(payload["productId"]))
    owner = await session.get(User, int(payload["recipientId"]))
    if product is None or owner is None or product.owner_id != owner.id or product.warranty_voided_at:
        return None
    expires_on = product.warranty_expires_on
    if expires_on.isoformat() != payload["expiresOn"] or expires_on < utc_today():
        return None
    return product, owner


async def expiry_email(session: AsyncSession, payload: dict[str, Any], settings: Settings) -> Email | None:
    loaded = await _product_and_owner(session, payload)
    if loaded is None or not loaded[1].email_notifications_enabled:
        return None
    product, owner = loaded
    days_left = _days_left(product.warranty_expires_on, utc_today())
    subject = f"The warranty of {product.name} expires {days_left}"
    text, html = render(
        "expiry_alert",
        subject,
        name=owner.name,
        product=product.name,
        expires_on=product.warranty_expires_on.isoformat(),
        days_left=days_left,
        link=f"{settings.frontend_url.rstrip('/')}/products/{product.id}",
    )
    return Email(owner.email, subject, text, html)


async def expiry_push(session: AsyncSession, payload: dict[str, Any]) -> tuple[int, PushNotification] | None:
    loaded = await _product_and_owner(session, payload)
    if loaded is None or not loaded[1].notifications_enabled:
        return None
    product, owner = loaded
    days_left = _days_left(product.warranty_expires_on, utc_today())
    notification = PushNotification(
        title="Warranty expiring",
        message=f"The warranty of {product.name} expires {days_left}.",
        data={
            "type": "warranty_expiring",
            "productId": str(product.id),
            "expiresOn": str(payload["expiresOn"]),
        },
        thread=f"product-{product.id}",
    )
    return owner.id, notification
